package harness

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/internal/harness/session"
	"github.com/mcpcheck/mcpcheck/internal/harness/target"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestHandshakeNamesTheProcessEnd: a stdio target that writes to stderr
// and exits at start-up fails its handshake with a *ProcessEnd that says
// how the process ended and what its stderr ended with; a wait that the
// end of its stdout ends says so too.
func TestHandshakeNamesTheProcessEnd(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs sh")
	}
	tg := target.Command("sh", "-c", "echo starting >&2; echo 'fatal: no config' >&2; exit 3")
	tg.Timeouts = target.Timeouts{Step: 5 * time.Second, Grace: time.Second}
	ctx := context.Background()
	s, err := Open(ctx, tg, spec.V20251125, OpenOptions{Session: session.Config{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var pe *ProcessEnd
	if !errors.As(s.OpenErr, &pe) {
		t.Fatalf("OpenErr = %v (%T), want a *ProcessEnd", s.OpenErr, s.OpenErr)
	}
	if pe.Exit != "exited with status 3" || !strings.HasSuffix(pe.Stderr, "fatal: no config") {
		t.Errorf("ProcessEnd{Exit: %q, Stderr: %q}, want the exit status 3 and the stderr tail", pe.Exit, pe.Stderr)
	}
	msg := s.OpenErr.Error()
	if strings.Count(msg, "exited with status 3") != 1 || !strings.Contains(msg, "fatal: no config") {
		t.Errorf("the handshake's error does not name the exit and stderr once: %s", msg)
	}
}
