package client

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
)

// Model produces sampling results. The reference client ships no model:
// callers plug in their own (the CLI has a canned one, tests fakes).
type Model interface {
	// CreateMessage answers a sampling request.
	CreateMessage(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
}

// ModelFunc adapts a function to Model.
type ModelFunc func(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)

// CreateMessage calls f.
func (f ModelFunc) CreateMessage(ctx context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
	return f(ctx, p)
}

// Sampling configures the client's answer to sampling/createMessage.
type Sampling struct {
	// Model answers approved requests.
	Model Model
	// Approve, when set, is asked first (a human in the loop); false
	// declines the request with an error to the server.
	Approve func(ctx context.Context, p *mcp.CreateMessageParams) (bool, error)
	// Tools declares the sampling.tools capability (2025-11-25 on): the
	// server may then send tools and toolChoice.
	Tools bool
}

// codeUserRejected is the error code the specification's examples use for a
// sampling request the user declined.
const codeUserRejected = -1

// sample answers one sampling request.
func (c *Client) sample(ctx context.Context, p *mcp.CreateMessageParams) (any, error) {
	s := c.opts.Sampling
	if s == nil || s.Model == nil {
		return nil, methodNotFound("this client did not declare the sampling capability")
	}
	if (len(p.Tools) > 0 || p.ToolChoice != nil) && !s.Tools {
		return nil, invalidParams("the request carries tools or toolChoice, but this client did not declare the sampling.tools capability")
	}
	if !c.fault(FaultSamplingUnchecked) {
		if err := checkMessages(p.Messages); err != nil {
			return nil, err
		}
	}
	if err := checkToolResults(p.Messages); err != nil {
		return nil, err
	}
	if s.Approve != nil {
		ok, err := s.Approve(ctx, p)
		if err != nil {
			return nil, fmt.Errorf("the approval hook failed: %w", err)
		}
		if !ok {
			return nil, &handlerError{codeUserRejected, "the user declined the sampling request"}
		}
	}
	res, err := s.Model.CreateMessage(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("the model failed: %w", err)
	}
	if res == nil {
		return nil, errors.New("the model returned no result")
	}
	if res.Role == "" {
		res.Role = mcp.RoleAssistant
	}
	return res, nil
}

// checkToolResults enforces the shape of tool use in sampling messages:
// a user message with tool results holds nothing else, and answers every
// tool use of the assistant message before it, and only those.
func checkToolResults(msgs []mcp.SamplingMessage) error {
	var pending map[string]bool // tool uses awaiting results
	for i, m := range msgs {
		var uses []string
		results := map[string]bool{}
		other := 0
		for _, b := range m.Content.Blocks {
			switch v := b.Content.(type) {
			case *mcp.ToolUseContent:
				uses = append(uses, v.ID)
			case *mcp.ToolResultContent:
				results[v.ToolUseID] = true
			default:
				other++
			}
		}
		if len(results) > 0 {
			if other > 0 || len(uses) > 0 {
				return invalidParams("messages[%d] mixes tool_result content with other content; a message with tool results must hold only tool results", i)
			}
			if m.Role != mcp.RoleUser {
				return invalidParams("messages[%d] carries tool results but its role is %q, not user", i, m.Role)
			}
			for id := range results {
				if !pending[id] {
					return invalidParams("messages[%d] has a tool_result for %q, which the previous assistant message did not request", i, id)
				}
			}
			for id := range pending {
				if !results[id] {
					return invalidParams("messages[%d] has no tool_result for tool use %q of the previous message", i, id)
				}
			}
			pending = nil
			continue
		}
		if len(pending) > 0 {
			for id := range pending {
				return invalidParams("messages[%d] does not answer tool use %q of the previous message with a tool_result", i, id)
			}
		}
		pending = nil
		if len(uses) > 0 {
			pending = map[string]bool{}
			for _, id := range uses {
				pending[id] = true
			}
		}
	}
	return nil
}

// checkMessages refuses sampling messages the client cannot use: a role
// other than user or assistant, or no content.
func checkMessages(msgs []mcp.SamplingMessage) error {
	if len(msgs) == 0 {
		return invalidParams("the request has no messages")
	}
	for i, m := range msgs {
		if m.Role != mcp.RoleUser && m.Role != mcp.RoleAssistant {
			return invalidParams("messages[%d] has role %q; a sampling message is from the user or the assistant", i, m.Role)
		}
		if len(m.Content.Blocks) == 0 {
			return invalidParams("messages[%d] has no content", i)
		}
	}
	return nil
}
