package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/reference/client"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

// elicitationFor builds the elicitation handlers for --elicit mode. "ask"
// prompts on stderr and reads answers from stdin; the others answer every
// request the same way (accept sends the schema's defaults).
func elicitationFor(e Env, mode string) *client.Elicitation {
	var mu sync.Mutex
	in := bufio.NewReader(e.Stdin)
	readLine := func(prompt string) (string, bool) {
		fmt.Fprint(e.Stderr, prompt)
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintln(e.Stderr)
			return "", false
		}
		return strings.TrimRight(line, "\r\n"), true
	}
	el := &client.Elicitation{}
	el.Form = func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		switch mode {
		case "accept":
			return &mcp.ElicitResult{Action: mcp.ActionAccept, Content: placeholders(p.RequestedSchema)}, nil
		case "decline":
			return &mcp.ElicitResult{Action: mcp.ActionDecline}, nil
		case "cancel":
			return &mcp.ElicitResult{Action: mcp.ActionCancel}, nil
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(e.Stderr, "\nThe server asks: %s\n", p.Message)
		content := map[string]json.RawMessage{}
		names := make([]string, 0, len(p.RequestedSchema.Properties))
		for n := range p.RequestedSchema.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			prop := p.RequestedSchema.Properties[n]
			label := orString(prop.Title, n)
			hint := string(prop.Kind())
			if len(prop.Enum) > 0 {
				hint = strings.Join(prop.Enum, "|")
			}
			if len(prop.Default) > 0 {
				hint += ", default " + string(prop.Default)
			}
			for try := 0; ; try++ {
				line, ok := readLine(fmt.Sprintf("  %s (%s; empty to skip): ", label, hint))
				if !ok {
					fmt.Fprintln(e.Stderr, "No answer; cancelling the request.")
					return &mcp.ElicitResult{Action: mcp.ActionCancel}, nil
				}
				if line == "" {
					break
				}
				v, err := typed(prop, line)
				if err == nil {
					content[n] = v
					break
				}
				if try == 2 {
					fmt.Fprintln(e.Stderr, "No valid answer; cancelling the request.")
					return &mcp.ElicitResult{Action: mcp.ActionCancel}, nil
				}
				fmt.Fprintf(e.Stderr, "  %v; try again\n", err)
			}
		}
		line, ok := readLine("Send these answers? [y = accept / n = decline / c = cancel]: ")
		switch {
		case ok && strings.HasPrefix(strings.ToLower(line), "y"):
			return &mcp.ElicitResult{Action: mcp.ActionAccept, Content: content}, nil
		case ok && strings.HasPrefix(strings.ToLower(line), "n"):
			return &mcp.ElicitResult{Action: mcp.ActionDecline}, nil
		}
		return &mcp.ElicitResult{Action: mcp.ActionCancel}, nil
	}
	el.URL = func(ctx context.Context, p *mcp.ElicitParams) (mcp.ElicitAction, error) {
		switch mode {
		case "accept":
			fmt.Fprintf(e.Stderr, "The server asks you to open:\n  %s\n(%s)\n", p.URL, p.Message)
			return mcp.ActionAccept, nil
		case "decline":
			return mcp.ActionDecline, nil
		case "cancel":
			return mcp.ActionCancel, nil
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(e.Stderr, "\nThe server asks you to open this URL (it has not been opened or fetched):\n  %s\n%s\n", p.URL, p.Message)
		line, ok := readLine("Open it yourself and answer y when done, or n to decline: ")
		if ok && strings.HasPrefix(strings.ToLower(line), "y") {
			return mcp.ActionAccept, nil
		}
		if ok && strings.HasPrefix(strings.ToLower(line), "n") {
			return mcp.ActionDecline, nil
		}
		return mcp.ActionCancel, nil
	}
	return el
}

// typed converts a typed answer to the JSON the schema wants.
func typed(prop mcp.PrimitiveSchema, s string) (json.RawMessage, error) {
	switch prop.Type {
	case "integer":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", s)
		}
		return json.RawMessage(strconv.FormatInt(n, 10)), nil
	case "number":
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", s)
		}
		return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case "boolean":
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false", s)
		}
		return json.RawMessage(strconv.FormatBool(b)), nil
	case "array":
		parts := strings.Split(s, ",")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
		}
		b, _ := json.Marshal(parts)
		return b, nil
	}
	if len(prop.Enum) > 0 {
		for _, v := range prop.Enum {
			if v == s {
				b, _ := json.Marshal(s)
				return b, nil
			}
		}
		return nil, fmt.Errorf("%q is not one of %s", s, strings.Join(prop.Enum, ", "))
	}
	b, _ := json.Marshal(s)
	return b, nil
}

// maxPlaceholder bounds the length of a sample string (a server's
// minLength may ask for any length).
const maxPlaceholder = 1 << 16

// placeholders answers every field that has no default with a sample value
// of the right type, so that --elicit accept can answer any form (servers
// tend to expect every field); the client applies the defaults itself.
func placeholders(schema *mcp.RequestedSchema) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	if schema == nil {
		return out
	}
	for name, prop := range schema.Properties {
		if len(prop.Default) > 0 {
			continue
		}
		var v any
		// An enum without options (a server may send "enum": [], found by
		// mcpcheck fuzz --client) has no sample: the field is left out.
		switch prop.Kind() {
		case mcp.KindEnum, mcp.KindLegacyEnum:
			if len(prop.Enum) == 0 {
				continue
			}
			v = prop.Enum[0]
		case mcp.KindTitledEnum:
			if len(prop.OneOf) == 0 {
				continue
			}
			v = prop.OneOf[0].Const
		case mcp.KindMultiEnum:
			if len(prop.Items.Enum) == 0 {
				continue
			}
			v = []string{prop.Items.Enum[0]}
		case mcp.KindTitledMulti:
			if len(prop.Items.AnyOf) == 0 {
				continue
			}
			v = []string{prop.Items.AnyOf[0].Const}
		case mcp.KindBoolean:
			v = false
		case mcp.KindInteger, mcp.KindNumber:
			n := 0.0
			if prop.Minimum != nil {
				n = *prop.Minimum
			}
			if prop.Type == "integer" {
				v = int64(n)
			} else {
				v = n
			}
		case mcp.KindString:
			switch prop.Format {
			case "email":
				v = "user@example.com"
			case "uri":
				v = "https://example.com/"
			case "date":
				v = "2025-01-01"
			case "date-time":
				v = "2025-01-01T00:00:00Z"
			default:
				// Lengths come from the server: a negative maxLength or a
				// huge minLength (found by mcpcheck fuzz --client) must
				// neither panic nor exhaust memory.
				s := "example"
				if prop.MinLength != nil && int64(len(s)) < *prop.MinLength {
					s += strings.Repeat("x", int(min(*prop.MinLength, maxPlaceholder))-len(s))
				}
				if prop.MaxLength != nil && int64(len(s)) > *prop.MaxLength {
					s = s[:max(*prop.MaxLength, 0)]
				}
				v = s
			}
		default:
			continue
		}
		b, _ := json.Marshal(v)
		out[name] = b
	}
	return out
}
