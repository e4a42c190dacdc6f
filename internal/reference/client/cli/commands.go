package cli

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/reference/client"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

// printJSON writes v indented.
func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func header(e Env, c *client.Client, what string, n int) {
	info := c.ServerInfo()
	name := info.Name
	if info.Version != "" {
		name += " " + info.Version
	}
	if name == "" {
		name = "the server"
	}
	fmt.Fprintf(e.Stdout, "%d %s on %s (protocol %s)\n\n", n, plural(what, n), name, c.ProtocolVersion())
}

func plural(s string, n int) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

// firstLine shortens a description for a listing.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	return s
}

func cmdTools(e Env, o *options, c *client.Client) error {
	tools, err := c.ListTools(e.Ctx)
	if err != nil {
		return err
	}
	if o.asJSON {
		return printJSON(e.Stdout, map[string]any{"tools": tools})
	}
	header(e, c, "tool", len(tools))
	for _, t := range tools {
		fmt.Fprintf(e.Stdout, "%s\n", t.Name)
		if d := firstLine(orString(t.Description, t.Title)); d != "" {
			fmt.Fprintf(e.Stdout, "    %s\n", d)
		}
		if args := describeArgs(t.InputSchema); args != "" {
			fmt.Fprintf(e.Stdout, "    args: %s\n", args)
		}
		var notes []string
		if len(t.OutputSchema) > 0 {
			notes = append(notes, "structured output")
		}
		if t.Execution != nil && t.Execution.TaskSupport != "" && t.Execution.TaskSupport != mcp.TaskForbidden {
			notes = append(notes, "task "+string(t.Execution.TaskSupport))
		}
		if a := t.Annotations; a != nil {
			if a.ReadOnlyHint != nil && *a.ReadOnlyHint {
				notes = append(notes, "read-only")
			}
			if a.DestructiveHint != nil && *a.DestructiveHint {
				notes = append(notes, "destructive")
			}
		}
		if len(notes) > 0 {
			fmt.Fprintf(e.Stdout, "    (%s)\n", strings.Join(notes, ", "))
		}
	}
	if len(tools) > 0 {
		fmt.Fprintf(e.Stdout, "\nCall one with: call %s --args '{...}'\n", shellWord(tools[0].Name))
	}
	return nil
}

func orString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// describeArgs renders the top-level properties of an input schema as
// "name* (type), other (type)"; * marks required ones.
func describeArgs(schema json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Type any   `json:"type"`
			Enum []any `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return ""
	}
	req := map[string]bool{}
	for _, r := range s.Required {
		req[r] = true
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if req[names[i]] != req[names[j]] {
			return req[names[i]]
		}
		return names[i] < names[j]
	})
	parts := make([]string, 0, len(names))
	for _, n := range names {
		p := s.Properties[n]
		typ := "any"
		switch t := p.Type.(type) {
		case string:
			typ = t
		case []any:
			var ts []string
			for _, x := range t {
				ts = append(ts, fmt.Sprint(x))
			}
			typ = strings.Join(ts, "|")
		}
		if len(p.Enum) > 0 && len(p.Enum) <= 6 {
			var vs []string
			for _, v := range p.Enum {
				vs = append(vs, fmt.Sprint(v))
			}
			typ = strings.Join(vs, "|")
		}
		mark := ""
		if req[n] {
			mark = "*"
		}
		parts = append(parts, fmt.Sprintf("%s%s (%s)", n, mark, typ))
	}
	return strings.Join(parts, ", ")
}

func parseArgs(o *options) (json.RawMessage, error) {
	if o.args == "" {
		return nil, nil
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(o.args), &v); err != nil || v == nil {
		return nil, usagef("reference client: --args must be a JSON object, like '{\"name\":\"value\"}'")
	}
	return json.RawMessage(o.args), nil
}

func cmdCall(e Env, o *options, c *client.Client) error {
	args, err := parseArgs(o)
	if err != nil {
		return err
	}
	name := o.pos[1]
	var callArgs any
	if args != nil {
		callArgs = args
	}
	progress := func(p mcp.ProgressNotificationParams) {
		total := ""
		if p.Total != nil {
			total = fmt.Sprintf("/%g", *p.Total)
		}
		fmt.Fprintf(e.Stderr, "progress: %g%s %s\n", p.Progress, total, p.Message)
	}
	res, err := c.CallTool(e.Ctx, name, callArgs, &client.CallOptions{OnProgress: progress, Timeout: o.timeout})
	if res == nil {
		return err
	}
	var schemaErr *client.OutputSchemaError
	if err != nil && !asOutputErr(err, &schemaErr) {
		return err
	}
	if o.asJSON {
		if perr := printJSON(e.Stdout, res); perr != nil {
			return perr
		}
	} else {
		printContent(e.Stdout, res.Content)
		if len(res.StructuredContent) > 0 {
			fmt.Fprintln(e.Stdout, "structuredContent:")
			var v any
			_ = json.Unmarshal(res.StructuredContent, &v)
			b, _ := json.MarshalIndent(v, "  ", "  ")
			fmt.Fprintf(e.Stdout, "  %s\n", b)
		}
	}
	if schemaErr != nil {
		return schemaErr
	}
	if res.IsError != nil && *res.IsError {
		return &ToolError{Tool: name}
	}
	return nil
}

func asOutputErr(err error, target **client.OutputSchemaError) bool {
	e, ok := err.(*client.OutputSchemaError)
	if ok {
		*target = e
	}
	return ok
}

// printContent renders content blocks for a person.
func printContent(w io.Writer, blocks []mcp.ContentBlock) {
	for _, b := range blocks {
		switch v := b.Content.(type) {
		case *mcp.TextContent:
			fmt.Fprintln(w, v.Text)
		case *mcp.ImageContent:
			fmt.Fprintf(w, "[image %s, %s]\n", v.MimeType, size(v.Data))
		case *mcp.AudioContent:
			fmt.Fprintf(w, "[audio %s, %s]\n", v.MimeType, size(v.Data))
		case *mcp.ResourceLink:
			fmt.Fprintf(w, "[resource link %s%s]\n", v.URI, orEmpty(" — ", v.Name))
		case *mcp.EmbeddedResource:
			printContents(w, []mcp.ResourceContents{v.Resource})
		case *mcp.ToolUseContent:
			fmt.Fprintf(w, "[tool use %s %s]\n", v.Name, v.Input)
		case *mcp.ToolResultContent:
			fmt.Fprintf(w, "[tool result for %s]\n", v.ToolUseID)
			printContent(w, v.Content)
		default:
			b, _ := json.Marshal(b)
			fmt.Fprintf(w, "%s\n", b)
		}
	}
}

func orEmpty(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

// size describes base64 data by its decoded length.
func size(b64 string) string {
	n := base64.StdEncoding.DecodedLen(len(b64))
	if raw, err := base64.StdEncoding.DecodeString(b64); err == nil {
		n = len(raw)
	}
	return fmt.Sprintf("%d bytes", n)
}

func printContents(w io.Writer, cs []mcp.ResourceContents) {
	for _, rc := range cs {
		switch {
		case rc.Text != nil:
			if len(cs) > 1 {
				fmt.Fprintf(w, "--- %s%s\n", rc.URI, orEmpty(" ", rc.MimeType))
			}
			fmt.Fprintln(w, *rc.Text)
		case rc.Blob != nil:
			fmt.Fprintf(w, "[blob %s%s, %s]\n", rc.URI, orEmpty(" ", rc.MimeType), size(*rc.Blob))
		}
	}
}

func cmdResources(e Env, o *options, c *client.Client) error {
	rs, err := c.ListResources(e.Ctx)
	if err != nil {
		return err
	}
	if o.asJSON {
		return printJSON(e.Stdout, map[string]any{"resources": rs})
	}
	header(e, c, "resource", len(rs))
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.URI, orString(r.Title, r.Name), r.MimeType)
	}
	return tw.Flush()
}

func cmdRead(e Env, o *options, c *client.Client) error {
	r, err := c.ReadResource(e.Ctx, o.pos[1])
	if err != nil {
		return err
	}
	if o.asJSON {
		return printJSON(e.Stdout, r)
	}
	printContents(e.Stdout, r.Contents)
	return nil
}

func cmdTemplates(e Env, o *options, c *client.Client) error {
	ts, err := c.ListResourceTemplates(e.Ctx)
	if err != nil {
		return err
	}
	if o.asJSON {
		return printJSON(e.Stdout, map[string]any{"resourceTemplates": ts})
	}
	header(e, c, "resource template", len(ts))
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	for _, t := range ts {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.URITemplate, orString(t.Title, t.Name), t.MimeType)
	}
	return tw.Flush()
}

func cmdPrompts(e Env, o *options, c *client.Client) error {
	ps, err := c.ListPrompts(e.Ctx)
	if err != nil {
		return err
	}
	if o.asJSON {
		return printJSON(e.Stdout, map[string]any{"prompts": ps})
	}
	header(e, c, "prompt", len(ps))
	for _, p := range ps {
		fmt.Fprintln(e.Stdout, p.Name)
		if d := firstLine(orString(p.Description, p.Title)); d != "" {
			fmt.Fprintf(e.Stdout, "    %s\n", d)
		}
		var args []string
		for _, a := range p.Arguments {
			mark := ""
			if a.Required != nil && *a.Required {
				mark = "*"
			}
			args = append(args, a.Name+mark)
		}
		if len(args) > 0 {
			fmt.Fprintf(e.Stdout, "    args: %s\n", strings.Join(args, ", "))
		}
	}
	return nil
}

func stringArgs(o *options) (map[string]string, error) {
	if o.args == "" {
		return nil, nil
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(o.args), &raw); err != nil || raw == nil {
		return nil, usagef("reference client: --args must be a JSON object of strings, like '{\"name\":\"value\"}'")
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		if s, ok := v.(string); ok {
			out[k] = s
		} else {
			b, _ := json.Marshal(v)
			out[k] = string(b)
		}
	}
	return out, nil
}

func cmdGet(e Env, o *options, c *client.Client) error {
	args, err := stringArgs(o)
	if err != nil {
		return err
	}
	r, err := c.GetPrompt(e.Ctx, o.pos[1], args)
	if err != nil {
		return err
	}
	if o.asJSON {
		return printJSON(e.Stdout, r)
	}
	if r.Description != "" {
		fmt.Fprintf(e.Stdout, "%s\n\n", r.Description)
	}
	for _, m := range r.Messages {
		fmt.Fprintf(e.Stdout, "[%s]\n", m.Role)
		printContent(e.Stdout, []mcp.ContentBlock{m.Content})
	}
	return nil
}

func cmdComplete(e Env, o *options, c *client.Client) error {
	kind, name, ok := strings.Cut(o.ref, ":")
	var ref mcp.CompleteReference
	switch {
	case ok && kind == "prompt":
		ref = mcp.PromptRef(name)
	case ok && kind == "resource":
		ref = mcp.ResourceRef(name)
	default:
		return usagef("reference client: --ref must be prompt:NAME or resource:URI_TEMPLATE, not %q", o.ref)
	}
	ctxArgs, err := stringArgs(o)
	if err != nil {
		return err
	}
	comp, err := c.Complete(e.Ctx, ref, mcp.CompleteArgument{Name: o.arg, Value: o.value}, ctxArgs)
	if err != nil {
		return err
	}
	if o.asJSON {
		return printJSON(e.Stdout, comp)
	}
	for _, v := range comp.Values {
		fmt.Fprintln(e.Stdout, v)
	}
	if comp.HasMore != nil && *comp.HasMore {
		fmt.Fprintln(e.Stdout, "(more available)")
	}
	return nil
}

func cmdPing(e Env, o *options, c *client.Client) error {
	start := time.Now()
	if err := c.Ping(e.Ctx); err != nil {
		return err
	}
	d := time.Since(start).Round(time.Microsecond)
	if o.asJSON {
		return printJSON(e.Stdout, map[string]any{"ok": true, "ms": float64(d.Microseconds()) / 1000})
	}
	fmt.Fprintf(e.Stdout, "pong from %s in %v (protocol %s)\n", orString(c.ServerInfo().Name, "the server"), d, c.ProtocolVersion())
	return nil
}

func cmdDiscover(e Env, o *options, c *client.Client) error {
	info := map[string]any{
		"protocolVersion": c.ProtocolVersion(),
		"stateless":       c.Stateless(),
		"serverInfo":      c.ServerInfo(),
		"capabilities":    c.ServerCapabilities(),
	}
	if d := c.Discover(); d != nil {
		info["supportedVersions"] = d.SupportedVersions
	}
	if s := c.Instructions(); s != "" {
		info["instructions"] = s
	}
	if o.asJSON {
		return printJSON(e.Stdout, info)
	}
	si := c.ServerInfo()
	fmt.Fprintf(e.Stdout, "server:     %s %s\n", orString(si.Name, "(unnamed)"), si.Version)
	era := "stateful (initialize)"
	if c.Stateless() {
		era = "stateless (per-request _meta)"
	}
	fmt.Fprintf(e.Stdout, "protocol:   %s, %s\n", c.ProtocolVersion(), era)
	if d := c.Discover(); d != nil {
		fmt.Fprintf(e.Stdout, "supports:   %s\n", strings.Join(d.SupportedVersions, ", "))
	}
	caps := c.ServerCapabilities()
	var names []string
	if caps.Tools != nil {
		names = append(names, "tools")
	}
	if caps.Resources != nil {
		n := "resources"
		if caps.Resources.Subscribe != nil && *caps.Resources.Subscribe {
			n += " (subscribe)"
		}
		names = append(names, n)
	}
	if caps.Prompts != nil {
		names = append(names, "prompts")
	}
	if caps.Completions != nil {
		names = append(names, "completions")
	}
	if caps.Logging != nil {
		names = append(names, "logging")
	}
	if caps.Tasks != nil {
		names = append(names, "tasks")
	}
	for k := range caps.Extensions {
		names = append(names, k)
	}
	fmt.Fprintf(e.Stdout, "offers:     %s\n", strings.Join(names, ", "))
	if s := c.Instructions(); s != "" {
		fmt.Fprintf(e.Stdout, "instructions:\n  %s\n", strings.ReplaceAll(strings.TrimSpace(s), "\n", "\n  "))
	}
	return nil
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@", r)) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}
