package fuzz

import (
	"context"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/mcpcheck/mcpcheck/harness/stage"
	"github.com/mcpcheck/mcpcheck/spec"
)

func TestZZDebugClient(t *testing.T) {
	cmd := os.Getenv("ZZ_CLIENT")
	if cmd == "" {
		t.Skip()
	}
	st, _ := stage.New()
	defer st.Close()
	ct := ClientTarget{Command: cmd, Stdio: os.Getenv("ZZ_STDIO") != "", Relay: "/tmp/mcpcheck-16"}
	v := spec.Version(os.Getenv("ZZ_V"))
	lim := clientLimits{wait: 5 * time.Second, deadline: 5 * time.Second, dropDeadline: 30 * time.Second, maxRSS: 1 << 30}
	for i := 0; i < 30; i++ {
		in, err := MakeClientInput(v, os.Getenv("ZZ_MUT"), Mix(1, 0, i), []string{"initialize", "tools/list", "tools/call"})
		if err != nil {
			t.Fatal(err)
		}
		run, err := runClientOnce(context.Background(), st, ct, v, in, lim)
		b, _ := json.Marshal(in.Client)
		t.Logf("%v played=%v %s %.80q obs=%v exit=%s", run.took.Round(time.Millisecond), run.played, b, in.Bytes(), run.obs, run.exit)
	}
}
