package session

import (
	"sync/atomic"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// Config says how the built-in client behaves. Zero fields take the
// defaults.
type Config struct {
	// Version is the protocol version to request (default 2025-11-25 for
	// stateful sessions, 2026-07-28 for stateless ones).
	Version spec.Version
	// ClientInfo names the client (default mcpcheck).
	ClientInfo mcp.Implementation
	// Capabilities are declared to the server; nil means DefaultCapabilities
	// for the version.
	Capabilities *mcp.ClientCapabilities
	// Roots answer roots/list (default one root, file:///mcpcheck/root).
	Roots []mcp.Root
	// Sampling shapes the canned model.
	Sampling Sampling
	// Elicitation says how elicitation requests are answered.
	Elicitation Elicitation
	// Timeout bounds each wait for an answer (default 10 s).
	Timeout time.Duration
	// StartupTimeout bounds the waits on a connection before the target
	// has sent anything on it (default DefaultStartupTimeout): starting
	// a server process takes time that answering does not, and a busy
	// machine stretches it. It never shortens Timeout.
	StartupTimeout time.Duration
	// MaxRounds bounds the multi round-trip loop (default 8).
	MaxRounds int
	// MaxKept bounds the notifications, server requests and findings kept
	// (default 10000 each; the rest are counted).
	MaxKept int
	// MaxKeptBytes bounds the memory the kept notifications, server
	// requests and irregular frames hold together (default 8 MiB, by
	// wire.Frame.Cost): a target that floods costs no more.
	MaxKeptBytes int
	// Budget, when set, is shared by sessions that live together (those
	// of one version run) and bounds what they keep in all, on top of
	// each one's MaxKeptBytes.
	Budget *Budget
	// Guard, when set, is asked before every request the session sends
	// (raw bytes too, when they decode as a request): an error keeps the
	// request from the target and is the send's error. The tool policy
	// of a run is its last line (a tools/call it does not allow is never
	// sent).
	Guard func(method string, params any) error
}

// DefaultStartupTimeout is how long a target gets to send its first
// message on a fresh connection: generous, since a server started on a
// loaded machine (many of them at once, on two cores) can take many
// seconds, and only a target that stays silent that long is silent.
const DefaultStartupTimeout = 60 * time.Second

// Budget is a byte budget shared by sessions (Config.Budget): what one
// session keeps of a flood is not left for the others. It also notes
// whether any of its sessions received a large frame (Large). It is safe
// for concurrent use.
type Budget struct {
	left  atomic.Int64
	large atomic.Bool
	spent atomic.Bool
}

// LargeFrame is the size from which a received frame counts as large
// (Budget.Large): a target that sends messages this big costs many times
// their size in memory while they are decoded and judged.
const LargeFrame = 1 << 20

// Large reports whether a session sharing the budget has received a frame
// of LargeFrame bytes or more. A runner uses it to stop running checks
// side by side, each holding such a message.
func (b *Budget) Large() bool { return b != nil && b.large.Load() }

// Exhausted reports whether a session sharing the budget found it spent:
// the target sent more than the budget holds (it floods). A runner uses
// it, like Large, to stop running checks side by side.
func (b *Budget) Exhausted() bool { return b != nil && b.spent.Load() }

// Heavy reports whether the target was found Large or Exhausted: a runner
// then runs its checks one at a time.
func (b *Budget) Heavy() bool { return b.Large() || b.Exhausted() }

// NewBudget returns a budget of n bytes.
func NewBudget(n int64) *Budget {
	b := &Budget{}
	b.left.Store(n)
	return b
}

// take reports whether n bytes are left, and takes them when they are.
func (b *Budget) take(n int) bool {
	if b == nil {
		return true
	}
	if b.left.Add(-int64(n)) < 0 {
		b.left.Add(int64(n))
		b.spent.Store(true)
		return false
	}
	return true
}

// Sampling configures the canned model that answers sampling requests.
type Sampling struct {
	// Text is the model's answer (default "mcpcheck canned answer").
	Text string
	// Model is the model name reported (default "mcpcheck-canned").
	Model string
	// UseTools makes the model call the first offered tool when toolChoice
	// is auto; with toolChoice required it always does.
	UseTools bool
}

// Elicitation configures answers to elicitation requests.
type Elicitation struct {
	// Action is accept (the default), decline or cancel.
	Action mcp.ElicitAction
	// Content overrides generated form values, by property name.
	Content map[string]any
}

// DefaultCapabilities is what the built-in client declares in version v:
// roots (with listChanged before 2026-07-28), sampling (with tools from
// 2025-11-25) and elicitation (from 2025-06-18; form and URL modes from
// 2025-11-25). It never declares tasks.
func DefaultCapabilities(v spec.Version) mcp.ClientCapabilities {
	c := mcp.ClientCapabilities{Roots: &mcp.RootsCapability{}, Sampling: &mcp.SamplingCapability{}}
	if v.Era() == spec.Stateful {
		c.Roots.ListChanged = mcp.Bool(true)
	}
	if v.Compare(spec.V20251125) >= 0 {
		c.Sampling.Tools = mcp.Present()
	}
	switch {
	case v.Compare(spec.V20251125) >= 0:
		c.Elicitation = &mcp.ElicitationCapability{Form: mcp.Present(), URL: mcp.Present()}
	case v.Compare(spec.V20250618) >= 0:
		c.Elicitation = &mcp.ElicitationCapability{}
	}
	return c
}

func (c Config) withDefaults(era spec.Era) Config {
	if c.Version == "" {
		c.Version = spec.V20251125
		if era == spec.Stateless {
			c.Version = spec.V20260728
		}
	}
	if c.ClientInfo.Name == "" {
		c.ClientInfo = mcp.Implementation{Name: "mcpcheck", Version: "dev"}
	}
	if c.Capabilities == nil {
		caps := DefaultCapabilities(c.Version)
		c.Capabilities = &caps
	}
	if c.Roots == nil {
		c.Roots = []mcp.Root{{URI: "file:///mcpcheck/root", Name: "mcpcheck"}}
	}
	if c.Sampling.Text == "" {
		c.Sampling.Text = "mcpcheck canned answer"
	}
	if c.Sampling.Model == "" {
		c.Sampling.Model = "mcpcheck-canned"
	}
	if c.Elicitation.Action == "" {
		c.Elicitation.Action = mcp.ActionAccept
	}
	if c.Timeout <= 0 {
		c.Timeout = 10 * time.Second
	}
	if c.StartupTimeout <= 0 {
		c.StartupTimeout = DefaultStartupTimeout
	}
	if c.MaxRounds <= 0 {
		c.MaxRounds = 8
	}
	if c.MaxKept <= 0 {
		c.MaxKept = 10000
	}
	if c.MaxKeptBytes <= 0 {
		c.MaxKeptBytes = 8 << 20
	}
	return c
}
