package client

import (
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/harness/stage"
	"github.com/mcpcheck/mcpcheck/reports"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestHeaderCaseBaselineWithoutEchoSaysSoOnce: a host that lists the tools
// and never calls one (Claude Code 2.1.332's 'claude mcp list' over
// streamable HTTP, census of 2026-12-02) leaves
// client/transport-http/stateless-header-name-case
// (transport-http.headers.case-insensitive-names) nothing to compare
// with. The check is untestable and says why in one sentence: it used to
// wrap the baseline's full sentence in a second "in scenario ... the
// client did not ...", once per case ("the client did not in scenario
// mcpcheck-stateless-flow the client did not call the tool echo ...").
func TestHeaderCaseBaselineWithoutEchoSaysSoOnce(t *testing.T) {
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	listed := fromStage(`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}],"resultType":"complete"}}`)
	c := judgeRecording(t, "client/transport-http/stateless-header-name-case", spec.V20260728, Streamable, map[string][]stage.Event{
		slScenFlow:       rec(fromClient(list), listed),
		slScenHeaderCase: rec(fromClient(list), listed),
	})
	why := c.Reason + c.Actual
	if c.Outcome != reports.Untestable {
		t.Fatalf("the baseline never called %s: %s, want untestable (requirement transport-http.headers.case-insensitive-names: nothing to compare with)", slEchoTool, describe(c))
	}
	if strings.Contains(why, "did not in scenario") || strings.Count(why, "in scenario "+slScenFlow) != 1 || !strings.Contains(why, "nothing to compare with") {
		t.Errorf("untestable reason %q: want one sentence naming %s once and saying there is nothing to compare with", why, slScenFlow)
	}
}
