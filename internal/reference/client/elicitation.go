package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

// Elicitation configures the client's answer to elicitation/create. A mode
// without a handler is not declared, and requests for it are refused with
// -32602.
type Elicitation struct {
	// Form asks the user to fill in the form. The client then applies the
	// schema's defaults to fields the user left out and validates the
	// content against requestedSchema before sending it.
	Form func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// URL asks the user whether to open p.URL, shown in full with
	// p.Message. The client never fetches the URL itself; on accept it
	// calls Open.
	URL func(ctx context.Context, p *mcp.ElicitParams) (mcp.ElicitAction, error)
	// Open opens a URL the user consented to (in a browser, say); nil
	// leaves that to the URL hook.
	Open func(ctx context.Context, url string) error
	// Wait bounds how long the client waits for
	// notifications/elicitation/complete before retrying a request that
	// failed with -32042; 0 means the client's timeout.
	Wait time.Duration
}

// elicit answers one elicitation request.
func (c *Client) elicit(ctx context.Context, p *mcp.ElicitParams) (any, error) {
	e := c.opts.Elicitation
	if e == nil {
		return nil, methodNotFound("this client did not declare the elicitation capability")
	}
	if err := p.Validate(); err != nil {
		return nil, invalidParams("%v", err)
	}
	switch p.EffectiveMode() {
	case mcp.ElicitForm:
		if e.Form == nil {
			return nil, invalidParams("this client did not declare form-mode elicitation")
		}
		if rs := p.RequestedSchema; rs != nil && rs.Schema != "" && !knownDialects[strings.TrimSuffix(rs.Schema, "#")] {
			if !c.fault(FaultSchemaDialectIgnored) {
				return nil, invalidParams("requestedSchema declares the JSON Schema dialect %q, which this client does not support", rs.Schema)
			}
			plain := *rs
			plain.Schema = ""
			q := *p
			q.RequestedSchema = &plain
			p = &q
		}
		res, err := e.Form(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("the form handler failed: %w", err)
		}
		if res == nil {
			return nil, errors.New("the form handler returned no answer")
		}
		if res.Action != mcp.ActionAccept {
			return &mcp.ElicitResult{Action: res.Action}, nil
		}
		content, err := completeForm(p.RequestedSchema, res.Content)
		if err != nil {
			return nil, err
		}
		return &mcp.ElicitResult{Action: mcp.ActionAccept, Content: content}, nil
	case mcp.ElicitURL:
		if e.URL == nil {
			return nil, invalidParams("this client did not declare URL-mode elicitation")
		}
		return c.urlConsent(ctx, p)
	}
	return nil, invalidParams("elicitation mode %q is unknown", p.Mode)
}

// urlConsent asks the user about a URL elicitation and opens it on accept.
func (c *Client) urlConsent(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	e := c.opts.Elicitation
	u, err := url.Parse(p.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, invalidParams("the elicitation URL %q is not an http(s) URL", p.URL)
	}
	if c.fault(FaultElicitURLPrefetch) {
		probeURL(ctx, http.MethodHead, p.URL)
	}
	action, err := e.URL(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("the URL consent hook failed: %w", err)
	}
	switch action {
	case mcp.ActionAccept, mcp.ActionDecline, mcp.ActionCancel:
	default:
		return nil, fmt.Errorf("the URL consent hook answered %q; want accept, decline or cancel", action)
	}
	if action == mcp.ActionAccept && e.Open != nil {
		if err := e.Open(ctx, p.URL); err != nil {
			return nil, fmt.Errorf("opening %s: %w", p.URL, err)
		}
	}
	return &mcp.ElicitResult{Action: action}, nil
}

// completeForm applies defaults and validates the content.
func completeForm(schema *mcp.RequestedSchema, content map[string]json.RawMessage) (map[string]json.RawMessage, error) {
	out := make(map[string]json.RawMessage, len(content))
	for k, v := range content {
		out[k] = v
	}
	for name, prop := range schema.Properties {
		if _, ok := out[name]; !ok && len(prop.Default) > 0 {
			out[name] = prop.Default
		}
	}
	sch, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	inst, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	if err := validateJSON(sch, inst); err != nil {
		return nil, &handlerError{-32603, "the form content does not match requestedSchema: " + err.Error()}
	}
	return out, nil
}

// handleURLRequired deals with a -32042 error: it asks the user about each
// URL elicitation, opens the accepted ones and waits (bounded) for their
// completion notifications. A nil return means the request may be retried.
func (c *Client) handleURLRequired(ctx context.Context, method string, err error) error {
	var re *RPCError
	errors.As(err, &re)
	var data mcp.URLElicitationRequiredData
	if len(re.Data) > 0 {
		_ = json.Unmarshal(re.Data, &data)
	}
	uerr := &URLElicitationRequiredError{Method: method, Elicitations: data.Elicitations}
	e := c.opts.Elicitation
	if e == nil || e.URL == nil || len(data.Elicitations) == 0 {
		return uerr
	}
	var ids []string
	for i := range data.Elicitations {
		p := &data.Elicitations[i]
		if p.EffectiveMode() != mcp.ElicitURL {
			return fmt.Errorf("%w (elicitation %d is not URL mode)", uerr, i)
		}
		res, err := c.urlConsent(ctx, p)
		if err != nil {
			return fmt.Errorf("%w: %v", uerr, err)
		}
		if res.Action != mcp.ActionAccept {
			return fmt.Errorf("%w: the user answered %s to %s", uerr, res.Action, p.URL)
		}
		if p.ElicitationID != "" {
			ids = append(ids, p.ElicitationID)
		}
	}
	wait := e.Wait
	if wait <= 0 {
		wait = c.timeout()
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for _, id := range ids {
		if !c.elic.wait(wctx, id) {
			c.logf("no notifications/elicitation/complete for %s within %s; retrying %s anyway", id, wait, method)
			break
		}
	}
	return nil
}

// elicitationWaiter tracks notifications/elicitation/complete.
type elicitationWaiter struct {
	mu   sync.Mutex
	done map[string]chan struct{}
}

func newElicitationWaiter() *elicitationWaiter {
	return &elicitationWaiter{done: map[string]chan struct{}{}}
}

func (w *elicitationWaiter) ch(id string) chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	ch, ok := w.done[id]
	if !ok {
		if len(w.done) > 1000 {
			w.done = map[string]chan struct{}{} // a flooding server cannot grow this forever
		}
		ch = make(chan struct{})
		w.done[id] = ch
	}
	return ch
}

// known reports whether id is an elicitation the client has heard of.
func (w *elicitationWaiter) known(id string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.done[id]
	return ok
}

func (w *elicitationWaiter) complete(id string) {
	ch := w.ch(id)
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case <-ch:
	default:
		close(ch)
	}
}

func (w *elicitationWaiter) wait(ctx context.Context, id string) bool {
	select {
	case <-w.ch(id):
		return true
	case <-ctx.Done():
		return false
	}
}
