package server

import (
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// This file strips every field a protocol version does not define, so a
// 2024-11-05 session never sees title, icons, structuredContent and the
// like. Fixtures are written once with every field; shaping happens on the
// way out.

func since(v, w spec.Version) bool { return v.Compare(w) >= 0 }

func shapeImplementation(v spec.Version, in mcp.Implementation) mcp.Implementation {
	if !since(v, spec.V20250618) {
		in.Title = ""
	}
	if !since(v, spec.V20251125) {
		in.Description, in.WebsiteURL, in.Icons = "", "", nil
	}
	return in
}

func shapeAnnotations(v spec.Version, a *mcp.Annotations) *mcp.Annotations {
	if a == nil {
		return nil
	}
	c := *a
	if !since(v, spec.V20250618) {
		c.LastModified = ""
	}
	return &c
}

func shapeTool(v spec.Version, t mcp.Tool) mcp.Tool {
	if !since(v, spec.V20250326) {
		t.Annotations = nil
	}
	if !since(v, spec.V20250618) {
		t.Title, t.OutputSchema, t.Meta = "", nil, nil
		if t.Annotations != nil {
			a := *t.Annotations
			t.Annotations = &a
		}
	}
	if !since(v, spec.V20251125) {
		t.Icons = nil
	}
	if v != spec.V20251125 {
		t.Execution = nil
	}
	return t
}

func shapeResource(v spec.Version, r mcp.Resource) mcp.Resource {
	r.Annotations = shapeAnnotations(v, r.Annotations)
	if !since(v, spec.V20250618) {
		r.Title, r.Meta = "", nil
	}
	if !since(v, spec.V20251125) {
		r.Icons = nil
	}
	return r
}

func shapeTemplate(v spec.Version, t mcp.ResourceTemplate) mcp.ResourceTemplate {
	t.Annotations = shapeAnnotations(v, t.Annotations)
	if !since(v, spec.V20250618) {
		t.Title, t.Meta = "", nil
	}
	if !since(v, spec.V20251125) {
		t.Icons = nil
	}
	return t
}

func shapePrompt(v spec.Version, p mcp.Prompt) mcp.Prompt {
	if !since(v, spec.V20250618) {
		p.Title, p.Meta = "", nil
		args := make([]mcp.PromptArgument, len(p.Arguments))
		for i, a := range p.Arguments {
			a.Title = ""
			args[i] = a
		}
		if len(args) > 0 {
			p.Arguments = args
		}
	}
	if !since(v, spec.V20251125) {
		p.Icons = nil
	}
	return p
}

func shapeContents(v spec.Version, c mcp.ResourceContents) mcp.ResourceContents {
	if !since(v, spec.V20250618) {
		c.Meta = nil
	}
	return c
}

// shapeBlock returns the block as version v can carry it. Audio (before
// 2025-03-26) and resource links (before 2025-06-18) become a text block
// that says what was left out.
func shapeBlock(v spec.Version, b mcp.ContentBlock) mcp.ContentBlock {
	old := !since(v, spec.V20250618)
	switch c := b.Content.(type) {
	case *mcp.TextContent:
		n := *c
		n.Annotations = shapeAnnotations(v, n.Annotations)
		if old {
			n.Meta = nil
		}
		return mcp.Block(&n)
	case *mcp.ImageContent:
		n := *c
		n.Annotations = shapeAnnotations(v, n.Annotations)
		if old {
			n.Meta = nil
		}
		return mcp.Block(&n)
	case *mcp.AudioContent:
		if !since(v, spec.V20250326) {
			return mcp.Text(fmt.Sprintf("[audio content (%s) omitted: protocol version %s has no audio content]", c.MimeType, v))
		}
		n := *c
		n.Annotations = shapeAnnotations(v, n.Annotations)
		if old {
			n.Meta = nil
		}
		return mcp.Block(&n)
	case *mcp.ResourceLink:
		if old {
			return mcp.Text(fmt.Sprintf("[resource link %s omitted: protocol version %s has no resource links]", c.URI, v))
		}
		n := *c
		n.Resource = shapeResource(v, n.Resource)
		return mcp.Block(&n)
	case *mcp.EmbeddedResource:
		n := *c
		n.Annotations = shapeAnnotations(v, n.Annotations)
		n.Resource = shapeContents(v, n.Resource)
		if old {
			n.Meta = nil
		}
		return mcp.Block(&n)
	}
	return b
}

func shapeBlocks(v spec.Version, bs []mcp.ContentBlock) []mcp.ContentBlock {
	out := make([]mcp.ContentBlock, len(bs))
	for i, b := range bs {
		out[i] = shapeBlock(v, b)
	}
	return out
}

func shapeCallResult(v spec.Version, r *mcp.CallToolResult) *mcp.CallToolResult {
	c := *r
	c.Content = shapeBlocks(v, r.Content)
	if !since(v, spec.V20250618) {
		c.StructuredContent = nil
		c.Meta = nil
	}
	return &c
}
