package session

import (
	"fmt"
	"strings"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/schema"
)

// FindingKind classifies a Finding.
type FindingKind string

// The kinds of finding.
const (
	// FindingSchema: a message from the target breaks the schema of the
	// session's version (Violations say how).
	FindingSchema FindingKind = "schema"
	// FindingUndeclared: the target asked the client for something it did
	// not declare (sampling, roots, an elicitation mode, sampling tools).
	FindingUndeclared FindingKind = "undeclared-capability"
	// FindingToolBalance: a sampling request whose messages break the
	// tool_use / tool_result pairing rules.
	FindingToolBalance FindingKind = "sampling-tool-balance"
	// FindingProtocol: something else the built-in client had to refuse,
	// such as params that do not decode, or a server-to-client request in
	// the stateless era.
	FindingProtocol FindingKind = "protocol"
	// FindingNotValidated: a message over MaxValidatedBytes, not judged
	// against the schema (validating it would cost the harness hundreds of
	// megabytes); no violation, a gap the schema checks say.
	FindingNotValidated FindingKind = "not-validated"
)

// MaxValidatedBytes is the size of the largest message the session
// validates against the schema (4 MiB, a list of some ten thousand tools).
const MaxValidatedBytes = 4 << 20

// Finding is one problem the session noticed in what the target sent,
// for the caller to turn into a check with the right requirement IDs.
type Finding struct {
	Kind FindingKind
	// Method is the method of the message, or of the request a response
	// answers ("" when unknown).
	Method string
	// Stream is where the message arrived.
	Stream string
	// Raw is the message.
	Raw        []byte
	Violations []schema.Violation
	// Detail says what is wrong, for a report.
	Detail string
	Time   time.Time
}

// String renders the finding for a report.
func (f Finding) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s", f.Kind)
	if f.Method != "" {
		fmt.Fprintf(&b, " (%s)", f.Method)
	}
	b.WriteString(": ")
	if f.Detail != "" {
		b.WriteString(f.Detail)
	}
	for i, v := range f.Violations {
		if i > 0 || f.Detail != "" {
			b.WriteString("; ")
		}
		ptr := v.Pointer
		if ptr == "" {
			ptr = "the message"
		}
		fmt.Fprintf(&b, "%s: %s", ptr, v.Message)
	}
	return b.String()
}
