package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// rpcError is an error the built-in client answers with.
type rpcError struct {
	Code    int64
	Message string
}

// answerStateful answers a server request on the wire and returns the
// bytes sent.
func (c *core) answerStateful(ctx context.Context, f wire.Frame) []byte {
	b := c.encodeAnswer(f)
	if b != nil {
		c.sendAnswer(ctx, f, b)
	}
	return b
}

// encodeAnswer computes the built-in client's answer to the server request
// f, encoded; nil when it cannot be encoded (a finding says so).
func (c *core) encodeAnswer(f wire.Frame) []byte {
	result, rerr := c.handle(f.Msg.Method, f.Msg.Params, f.Stream, f.Raw)
	var b []byte
	var err error
	if rerr != nil {
		b, err = jsonrpc.NewErrorResponse(f.Msg.ID, rerr.Code, rerr.Message, nil)
	} else {
		b, err = jsonrpc.NewResponse(f.Msg.ID, result)
	}
	if err != nil {
		c.finding(Finding{Kind: FindingProtocol, Method: f.Msg.Method, Stream: f.Stream, Raw: f.Raw, Detail: "the built-in client could not encode its answer: " + err.Error()})
		return nil
	}
	return b
}

// sendAnswer sends b, the answer to the server request f, within the
// session's timeout. A connection already closed is not a finding: the
// session ended before the answer could go out.
func (c *core) sendAnswer(ctx context.Context, f wire.Frame, b []byte) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.cfg.Timeout)
	defer cancel()
	if _, err := c.conn.Send(sctx, b); err != nil && !errors.Is(err, wire.ErrClosed) {
		c.finding(Finding{Kind: FindingProtocol, Method: f.Msg.Method, Stream: f.Stream, Raw: f.Raw, Detail: "the built-in client could not send its answer: " + err.Error()})
	}
}

// arrival answers the server's requests as they arrive (see
// core.answerOnArrival).
type arrival struct{ c *core }

func (arrival) Sent(wire.Outgoing)      {}
func (arrival) Noted(string, time.Time) {}

// Received answers f when it is a server request: the answer is computed
// here, before the frame is queued for Recv, and sent from its own
// goroutine so the reader never waits on a write.
func (a arrival) Received(f wire.Frame) {
	if f.Kind != wire.KindMessage || f.Msg.Shape != jsonrpc.KindRequest {
		return
	}
	c := a.c
	key := arrivalKey(f)
	c.mu.Lock()
	if c.early == nil {
		c.early = map[string][]byte{}
	}
	if len(c.early) >= maxEarly {
		c.mu.Unlock()
		return // Recv answers it, as it did before answers on arrival
	}
	c.mu.Unlock()
	b := c.encodeAnswer(f)
	c.mu.Lock()
	c.early[key] = b
	// Handed out now, before the answer goes out: a server that acts on
	// the answer (serves a call it held) can get that result to Recv
	// before this frame is queued, and the request must already show.
	c.keepRequest(f, b)
	c.mu.Unlock()
	if b != nil {
		go c.sendAnswer(context.Background(), f, b)
	}
}

// arrivalKey names one received frame: its stream, id and arrival time.
func arrivalKey(f wire.Frame) string {
	return f.Stream + "\x00" + f.Msg.ID.String() + "\x00" + strconv.FormatInt(f.Time.UnixNano(), 10)
}

// maxEarly bounds the answers sent on arrival and not yet handed out by
// Recv; past it Recv answers the requests itself.
const maxEarly = 10000

// answerOnArrival makes the session answer server requests the moment
// they arrive instead of when a check reads them: a session that sits idle
// between checks (a pooled one, or one held open by a check that waits on
// something else) would otherwise leave a server's roots/list or ping
// unanswered until the server gives up on it, and the server's own timeout
// (a minute in the TypeScript SDK) would then decide, with the machine's
// speed, whether the run sees a notifications/cancelled.
func (c *core) answerOnArrival() {
	remove := c.conn.Observe(arrival{c})
	prev := c.untap
	c.untap = func() { remove(); prev() }
}

// handle computes the built-in client's answer to method with params.
func (c *core) handle(method string, params json.RawMessage, stream string, raw []byte) (any, *rpcError) {
	caps := c.cfg.Capabilities
	refuse := func(kind FindingKind, code int64, detail string) (any, *rpcError) {
		c.finding(Finding{Kind: kind, Method: method, Stream: stream, Raw: raw, Detail: detail})
		return nil, &rpcError{Code: code, Message: detail}
	}
	decode := func() (any, *rpcError) {
		if params == nil {
			params = json.RawMessage("{}")
		}
		p, err := mcp.DecodeParams(method, params)
		if err != nil {
			_, e := refuse(FindingProtocol, jsonrpc.InvalidParams, fmt.Sprintf("the %s params do not decode: %v", method, err))
			return nil, e
		}
		return p, nil
	}
	switch method {
	case spec.MethodPing:
		return struct{}{}, nil
	case spec.MethodRootsList:
		if caps.Roots == nil {
			return refuse(FindingUndeclared, jsonrpc.MethodNotFound, "the server asked for roots, but the client did not declare the roots capability")
		}
		return mcp.ListRootsResult{Roots: c.cfg.Roots}, nil
	case spec.MethodSamplingCreateMessage:
		if caps.Sampling == nil {
			return refuse(FindingUndeclared, jsonrpc.MethodNotFound, "the server asked for sampling, but the client did not declare the sampling capability")
		}
		p, e := decode()
		if e != nil {
			return nil, e
		}
		cp := p.(*mcp.CreateMessageParams)
		if (len(cp.Tools) > 0 || cp.ToolChoice != nil) && caps.Sampling.Tools == nil { // {} declares it: presence, not content
			return refuse(FindingUndeclared, jsonrpc.InvalidParams, "the sampling request offers tools, but the client did not declare sampling.tools")
		}
		if err := toolBalance(cp.Messages); err != nil {
			return refuse(FindingToolBalance, jsonrpc.InvalidParams, err.Error())
		}
		return c.canned(cp), nil
	case spec.MethodElicitationCreate:
		if caps.Elicitation == nil {
			return refuse(FindingUndeclared, jsonrpc.MethodNotFound, "the server asked for elicitation, but the client did not declare the elicitation capability")
		}
		p, e := decode()
		if e != nil {
			return nil, e
		}
		ep := p.(*mcp.ElicitParams)
		mode := ep.EffectiveMode()
		switch {
		case mode == mcp.ElicitForm && !caps.Elicitation.SupportsForm():
			return refuse(FindingUndeclared, jsonrpc.InvalidParams, "the server asked for a form elicitation, but the client did not declare form mode")
		case mode == mcp.ElicitURL && !caps.Elicitation.SupportsURL():
			return refuse(FindingUndeclared, jsonrpc.InvalidParams, "the server asked for a URL elicitation, but the client did not declare URL mode")
		case mode != mcp.ElicitForm && mode != mcp.ElicitURL:
			return refuse(FindingProtocol, jsonrpc.InvalidParams, fmt.Sprintf("elicitation mode %q is not one the protocol defines", mode))
		}
		res := mcp.ElicitResult{Action: c.cfg.Elicitation.Action}
		if res.Action == mcp.ActionAccept && mode == mcp.ElicitForm && ep.RequestedSchema != nil {
			res.Content = formContent(*ep.RequestedSchema, c.cfg.Elicitation.Content)
		}
		return res, nil
	}
	return nil, &rpcError{Code: jsonrpc.MethodNotFound, Message: fmt.Sprintf("mcpcheck's client does not handle %q", method)}
}

// canned is the deterministic model: it calls the first offered tool when
// toolChoice requires it (or allows it and Sampling.UseTools is set) and
// the conversation does not end with tool results; otherwise it answers
// with the configured text.
func (c *core) canned(p *mcp.CreateMessageParams) mcp.CreateMessageResult {
	mode := mcp.ToolChoiceAuto
	if p.ToolChoice != nil && p.ToolChoice.Mode != "" {
		mode = p.ToolChoice.Mode
	}
	usedTools, lastIsResult := false, false
	for i, m := range p.Messages {
		for _, b := range m.Content.Blocks {
			switch b.Content.(type) {
			case *mcp.ToolUseContent:
				usedTools = true
			case *mcp.ToolResultContent:
				if i == len(p.Messages)-1 {
					lastIsResult = true
				}
			}
		}
	}
	useTool := len(p.Tools) > 0 && mode != mcp.ToolChoiceNone && !lastIsResult &&
		((mode == mcp.ToolChoiceRequired && !usedTools) || (mode == mcp.ToolChoiceAuto && c.cfg.Sampling.UseTools))
	if useTool {
		return mcp.CreateMessageResult{
			Role:       mcp.RoleAssistant,
			Model:      c.cfg.Sampling.Model,
			StopReason: mcp.StopToolUse,
			Content:    mcp.Many(&mcp.ToolUseContent{ID: "mcpcheck-call-1", Name: p.Tools[0].Name, Input: json.RawMessage("{}")}),
		}
	}
	return mcp.CreateMessageResult{
		Role:       mcp.RoleAssistant,
		Model:      c.cfg.Sampling.Model,
		StopReason: mcp.StopEndTurn,
		Content:    mcp.Single(&mcp.TextContent{Text: c.cfg.Sampling.Text}),
	}
}

// toolBalance checks the sampling rule: every assistant message with
// tool_use blocks is followed by a user message made only of tool_result
// blocks answering each of them, and tool results answer a tool use.
func toolBalance(msgs []mcp.SamplingMessage) error {
	for i, m := range msgs {
		var uses []string
		var results int
		for _, b := range m.Content.Blocks {
			switch x := b.Content.(type) {
			case *mcp.ToolUseContent:
				uses = append(uses, x.ID)
			case *mcp.ToolResultContent:
				results++
			}
		}
		if results > 0 {
			if results != len(m.Content.Blocks) {
				return fmt.Errorf("message %d mixes tool_result blocks with other content", i)
			}
			if i == 0 || !hasToolUse(msgs[i-1]) {
				return fmt.Errorf("message %d holds tool results that answer no tool_use in the message before it", i)
			}
		}
		if len(uses) == 0 {
			continue
		}
		if i+1 >= len(msgs) {
			return fmt.Errorf("message %d asks for tools (%s) but no message with their results follows", i, strings.Join(uses, ", "))
		}
		next := msgs[i+1]
		answered := map[string]bool{}
		for _, b := range next.Content.Blocks {
			if r, ok := b.Content.(*mcp.ToolResultContent); ok {
				answered[r.ToolUseID] = true
			}
		}
		for _, id := range uses {
			if !answered[id] {
				return fmt.Errorf("tool_use %q of message %d has no tool_result in message %d", id, i, i+1)
			}
		}
		if next.Role != mcp.RoleUser {
			return fmt.Errorf("message %d, which answers tool uses, has role %q; want user", i+1, next.Role)
		}
	}
	return nil
}

func hasToolUse(m mcp.SamplingMessage) bool {
	for _, b := range m.Content.Blocks {
		if _, ok := b.Content.(*mcp.ToolUseContent); ok {
			return true
		}
	}
	return false
}

// formContent fills a form: defaults first, then overrides, then a valid
// value of each property's kind.
func formContent(s mcp.RequestedSchema, overrides map[string]any) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for name, p := range s.Properties {
		if v, ok := overrides[name]; ok {
			if b, err := json.Marshal(v); err == nil {
				out[name] = b
				continue
			}
		}
		if len(p.Default) > 0 {
			out[name] = p.Default
			continue
		}
		var v any
		switch p.Kind() {
		case mcp.KindString:
			v = sampleString(p)
		case mcp.KindNumber, mcp.KindInteger:
			n := 0.0
			if p.Minimum != nil {
				n = *p.Minimum
			} else if p.Maximum != nil && *p.Maximum < 0 {
				n = *p.Maximum
			}
			if p.Kind() == mcp.KindInteger {
				v = int64(n)
			} else {
				v = n
			}
		case mcp.KindBoolean:
			v = true // the user confirms
		case mcp.KindEnum, mcp.KindLegacyEnum:
			if len(p.Enum) > 0 {
				v = p.Enum[0]
			}
		case mcp.KindTitledEnum:
			if len(p.OneOf) > 0 {
				v = p.OneOf[0].Const
			}
		case mcp.KindMultiEnum, mcp.KindTitledMulti:
			var opts []string
			if p.Items != nil {
				opts = p.Items.Enum
				for _, o := range p.Items.AnyOf {
					opts = append(opts, o.Const)
				}
			}
			n := 1
			if p.MinItems != nil {
				n = int(*p.MinItems)
			}
			v = opts[:min(n, len(opts))]
		}
		if v == nil {
			continue
		}
		b, _ := json.Marshal(v)
		out[name] = b
	}
	return out
}

func sampleString(p mcp.PrimitiveSchema) string {
	s := "mcpcheck"
	switch p.Format {
	case "email":
		s = "mcpcheck@example.com"
	case "uri":
		s = "https://example.com/mcpcheck"
	case "date":
		s = "2026-01-01"
	case "date-time":
		s = "2026-01-01T00:00:00Z"
	}
	if p.MinLength != nil {
		for int64(len(s)) < *p.MinLength {
			s += "x"
		}
	}
	if p.MaxLength != nil && int64(len(s)) > *p.MaxLength {
		s = s[:*p.MaxLength]
	}
	return s
}
