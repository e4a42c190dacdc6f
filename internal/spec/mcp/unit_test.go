package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
	"github.com/mcpcheck/mcpcheck/spec"
)

func TestLoggingLevelOrdering(t *testing.T) {
	for i, l := range LoggingLevels {
		if l.Severity() != i || !l.Valid() {
			t.Errorf("%q: Severity %d Valid %v, want %d true", l, l.Severity(), l.Valid(), i)
		}
		for j, m := range LoggingLevels {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := l.Compare(m); got != want {
				t.Errorf("%q.Compare(%q) = %d, want %d", l, m, got, want)
			}
			if got := l.AtLeast(m); got != (i >= j) {
				t.Errorf("%q.AtLeast(%q) = %v, want %v", l, m, got, i >= j)
			}
		}
	}
	if len(LoggingLevels) != 8 || LoggingLevels[0] != LevelDebug || LoggingLevels[7] != LevelEmergency {
		t.Fatalf("LoggingLevels = %v", LoggingLevels)
	}
	bogus := LoggingLevel("verbose")
	if bogus.Valid() || bogus.Severity() != -1 || bogus.AtLeast(LevelDebug) || LevelError.AtLeast(bogus) {
		t.Error("an unknown level must be invalid and never pass a threshold")
	}
	if _, err := ParseLoggingLevel("WARNING"); err == nil {
		t.Error("levels are case-sensitive: WARNING must not parse")
	}
	if l, err := ParseLoggingLevel("critical"); err != nil || l != LevelCritical {
		t.Errorf("ParseLoggingLevel(critical) = %q, %v", l, err)
	}
}

func TestTaskTransitions(t *testing.T) {
	legal := map[[2]TaskStatus]bool{
		{"", TaskWorking}:                  true,
		{TaskWorking, TaskInputRequired}:   true,
		{TaskWorking, TaskCompleted}:       true,
		{TaskWorking, TaskFailed}:          true,
		{TaskWorking, TaskCancelled}:       true,
		{TaskInputRequired, TaskWorking}:   true,
		{TaskInputRequired, TaskCompleted}: true,
		{TaskInputRequired, TaskFailed}:    true,
		{TaskInputRequired, TaskCancelled}: true,
	}
	froms := append([]TaskStatus{"", "bogus"}, TaskStatuses...)
	tos := append([]TaskStatus{"", "bogus"}, TaskStatuses...)
	for _, f := range froms {
		for _, to := range tos {
			if got := LegalTransition(f, to); got != legal[[2]TaskStatus{f, to}] {
				t.Errorf("LegalTransition(%q, %q) = %v, want %v", f, to, got, !got)
			}
		}
	}
	for _, s := range TaskStatuses {
		want := s == TaskCompleted || s == TaskFailed || s == TaskCancelled
		if Terminal(s) != want {
			t.Errorf("Terminal(%q) = %v, want %v", s, !want, want)
		}
	}
	if Terminal("bogus") || TaskStatus("bogus").Valid() {
		t.Error("unknown status must be neither terminal nor valid")
	}
}

func TestProgressTokenVariants(t *testing.T) {
	for _, c := range []struct {
		in    string
		isStr bool
	}{{`"abc"`, true}, {`""`, true}, {`0`, false}, {`-12`, false}, {`9007199254740993`, false}} {
		var tok ProgressToken
		if err := json.Unmarshal([]byte(c.in), &tok); err != nil {
			t.Fatalf("Unmarshal(%s): %v", c.in, err)
		}
		if tok.IsZero() || tok.IsString() != c.isStr {
			t.Errorf("Unmarshal(%s): IsZero %v IsString %v", c.in, tok.IsZero(), tok.IsString())
		}
		out, _ := json.Marshal(tok)
		if string(out) != c.in {
			t.Errorf("round trip of %s gave %s", c.in, out)
		}
	}
	for _, bad := range []string{`null`, `1.5`, `1e3`, `true`, `{}`, `[]`, `99999999999999999999`} {
		var tok ProgressToken
		if err := json.Unmarshal([]byte(bad), &tok); err == nil {
			t.Errorf("Unmarshal(%s) succeeded, want an error", bad)
		}
	}
	if s, ok := StringToken("x").Str(); !ok || s != "x" {
		t.Error("StringToken.Str")
	}
	if n, ok := IntToken(4).Int(); !ok || n != 4 {
		t.Error("IntToken.Int")
	}
	if IntToken(4).String() != "4" || StringToken("4").String() != `"4"` || (ProgressToken{}).String() != "<none>" {
		t.Error("String renders the wire form")
	}
}

func TestRequestIDVariantsInParams(t *testing.T) {
	for _, c := range []struct {
		in   string
		want jsonrpc.ID
	}{
		{`{"requestId":"r-1"}`, jsonrpc.StringID("r-1")},
		{`{"requestId":7}`, jsonrpc.IntID(7)},
		{`{"reason":"x"}`, jsonrpc.ID{}},
	} {
		var p CancelledNotificationParams
		if err := json.Unmarshal([]byte(c.in), &p); err != nil {
			t.Fatal(err)
		}
		if p.RequestID != c.want {
			t.Errorf("%s: requestId = %v, want %v", c.in, p.RequestID, c.want)
		}
		out, _ := json.Marshal(p)
		if err := sameJSON([]byte(c.in), out, "CancelledNotificationParams"); err != nil {
			t.Error(err)
		}
	}
	var p CancelledNotificationParams
	if err := json.Unmarshal([]byte(`{"requestId":null}`), &p); err == nil {
		t.Error("a null requestId must be rejected")
	}
}

func TestNullableInt(t *testing.T) {
	var task Task
	for _, c := range []struct {
		in            string
		present, null bool
	}{{`{"ttl":null}`, true, true}, {`{"ttl":5}`, true, false}, {`{}`, false, false}} {
		task = Task{}
		if err := json.Unmarshal([]byte(c.in), &task); err != nil {
			t.Fatal(err)
		}
		if !task.TTL.IsZero() != c.present || task.TTL.IsNull() != c.null {
			t.Errorf("%s: present %v null %v", c.in, !task.TTL.IsZero(), task.TTL.IsNull())
		}
	}
	if err := json.Unmarshal([]byte(`{"ttl":"5"}`), &task); err == nil {
		t.Error("a string ttl must be rejected")
	}
	if v, ok := IntValue(3).Get(); !ok || v != 3 {
		t.Error("IntValue.Get")
	}
	if _, ok := Null().Get(); ok {
		t.Error("Null().Get reports a value")
	}
}

func TestMetaHelpers(t *testing.T) {
	caps := ClientCapabilities{Roots: &RootsCapability{}, Sampling: &SamplingCapability{Tools: Present()}}
	info := Implementation{Name: "c", Version: "1"}
	m, err := RequestMeta(string(spec.V20260728), caps, &info)
	if err != nil {
		t.Fatal(err)
	}
	if miss := m.MissingRequestMeta(); len(miss) != 0 {
		t.Errorf("MissingRequestMeta = %v", miss)
	}
	if v, ok, err := m.ProtocolVersion(); !ok || err != nil || v != "2026-07-28" {
		t.Errorf("ProtocolVersion = %q %v %v", v, ok, err)
	}
	if c, ok, err := m.ClientCapabilities(); !ok || err != nil || c.Sampling == nil || c.Sampling.Tools == nil {
		t.Errorf("ClientCapabilities = %+v %v %v", c, ok, err)
	}
	if i, ok, err := m.ClientInfo(); !ok || err != nil || i.Name != info.Name {
		t.Errorf("ClientInfo = %+v %v %v", i, ok, err)
	}
	m.SetLogLevel(LevelNotice)
	m.SetProgressToken(IntToken(3))
	m.SetSubscriptionID(jsonrpc.StringID("s"))
	m.SetRelatedTask("t1")
	if err := m.SetServerInfo(info); err != nil {
		t.Fatal(err)
	}
	if l, _, err := m.LogLevel(); l != LevelNotice || err != nil {
		t.Errorf("LogLevel = %q %v", l, err)
	}
	if tok, _, _ := m.ProgressToken(); tok != IntToken(3) {
		t.Errorf("ProgressToken = %v", tok)
	}
	if id, _, _ := m.SubscriptionID(); id != jsonrpc.StringID("s") {
		t.Errorf("SubscriptionID = %v", id)
	}
	if r, _, _ := m.RelatedTask(); r.TaskID != "t1" {
		t.Errorf("RelatedTask = %v", r)
	}
	if i, _, _ := m.ServerInfo(); i.Name != info.Name {
		t.Errorf("ServerInfo = %v", i)
	}
	m[MetaLogLevel] = json.RawMessage(`"loud"`)
	if _, _, err := m.LogLevel(); err == nil {
		t.Error("an unknown log level in _meta must be an error")
	}
	m[MetaProgressToken] = json.RawMessage(`1.5`)
	if _, _, err := m.ProgressToken(); err == nil || !strings.Contains(err.Error(), MetaProgressToken) {
		t.Errorf("bad token error = %v, want one naming the key", err)
	}
	var empty Meta
	if got := empty.MissingRequestMeta(); len(got) != 2 {
		t.Errorf("MissingRequestMeta of empty = %v", got)
	}
	if _, ok, err := empty.ClientInfo(); ok || err != nil {
		t.Error("absent key must report false, nil")
	}
}

func TestRegistryMatchesMethods(t *testing.T) {
	inSpec := map[string]spec.Method{}
	for _, m := range spec.Methods {
		inSpec[m.Name] = m
		if !Known(m.Name) {
			t.Errorf("spec method %q is not in the registry", m.Name)
			continue
		}
		if NewParams(m.Name) == nil {
			t.Errorf("%q has no params type", m.Name)
		}
		hasResult := NewResult(m.Name) != nil
		if hasResult != (m.Kind == spec.RequestMethod) {
			t.Errorf("%q: has result type %v, but kind is %v", m.Name, hasResult, m.Kind)
		}
	}
	for _, name := range RegisteredMethods() {
		if _, ok := inSpec[name]; !ok {
			t.Errorf("registry method %q is not in spec.Methods", name)
		}
	}
	if NewParams("nope") != nil || NewResult("nope") != nil || Known("nope") {
		t.Error("unknown methods must give nil")
	}
	if _, err := DecodeParams("nope", nil); err == nil {
		t.Error("DecodeParams of an unknown method must fail")
	}
	if v, err := DecodeParams(spec.MethodToolsList, nil); err != nil || v.(*PaginatedParams) == nil {
		t.Errorf("absent params must decode as zero: %v", err)
	}
}

func TestDecodeResultShapes(t *testing.T) {
	cases := []struct {
		method, in string
		want       any
		wantErr    string
	}{
		{spec.MethodToolsCall, `{"content":[]}`, &CallToolResult{}, ""},
		{spec.MethodToolsCall, `{"resultType":"complete","content":[]}`, &CallToolResult{}, ""},
		{spec.MethodToolsCall, `{"resultType":"input_required","requestState":"s"}`, &InputRequiredResult{}, ""},
		{spec.MethodResourcesRead, `{"resultType":"input_required","requestState":"s"}`, &InputRequiredResult{}, ""},
		{spec.MethodToolsCall, `{"task":{"taskId":"t","status":"working","createdAt":"a","lastUpdatedAt":"b","ttl":null}}`, &CreateTaskResult{}, ""},
		{spec.MethodSamplingCreateMessage, `{"task":{"taskId":"t","status":"working","createdAt":"a","lastUpdatedAt":"b","ttl":1}}`, &CreateTaskResult{}, ""},
		{spec.MethodToolsList, `{"resultType":"input_required"}`, nil, "only tools/call"},
		{spec.MethodToolsCall, `{"resultType":"partial","content":[]}`, nil, `unknown resultType "partial"`},
		{spec.MethodToolsCall, `{"resultType":7,"content":[]}`, nil, "resultType is a number"},
		{spec.MethodToolsCall, `[]`, nil, "want an object"},
		{spec.MethodProgress, `{}`, nil, "is a notification"},
		{"nope", `{}`, nil, "unknown method"},
	}
	for _, c := range cases {
		got, err := DecodeResult(c.method, json.RawMessage(c.in))
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("DecodeResult(%s, %s) error = %v, want %q", c.method, c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("DecodeResult(%s, %s): %v", c.method, c.in, err)
			continue
		}
		if gotT, wantT := typeName(got), typeName(c.want); gotT != wantT {
			t.Errorf("DecodeResult(%s, %s) = %s, want %s", c.method, c.in, gotT, wantT)
		}
	}
	if ResultType("").OrComplete() != ResultComplete || ResultInputRequired.OrComplete() != ResultInputRequired {
		t.Error("OrComplete")
	}
}

func typeName(v any) string { return fmtType(v) }

func TestInputRequestsAndResponses(t *testing.T) {
	var r InputRequest
	if err := json.Unmarshal([]byte(`{"method":"tools/call","params":{"name":"x"}}`), &r); err == nil || !strings.Contains(err.Error(), "cannot be carried") {
		t.Errorf("tools/call as input request: %v", err)
	}
	if err := json.Unmarshal([]byte(`{"params":{}}`), &r); err == nil || !strings.Contains(err.Error(), `no "method"`) {
		t.Errorf("missing method: %v", err)
	}
	if err := json.Unmarshal([]byte(`{"method":"roots/list"}`), &r); err != nil || r.Params != nil {
		t.Errorf("roots/list without params: %v %v", err, r.Params)
	}
	if err := json.Unmarshal([]byte(`{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`), &r); err != nil {
		t.Fatal(err)
	} else if _, ok := r.Params.(*ElicitParams); !ok {
		t.Errorf("elicitation params decoded as %T", r.Params)
	}
	if _, err := json.Marshal(InputRequest{Method: "ping"}); err == nil {
		t.Error("encoding a ping input request must fail")
	}
	for in, want := range map[string]string{
		`{"action":"decline"}`: "*mcp.ElicitResult",
		`{"roots":[]}`:         "*mcp.ListRootsResult",
		`{"role":"assistant","model":"m","content":{"type":"text","text":"x"}}`: "*mcp.CreateMessageResult",
	} {
		var resp InputResponse
		if err := json.Unmarshal([]byte(in), &resp); err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got := fmtType(resp.Result); got != want {
			t.Errorf("%s decoded as %s, want %s", in, got, want)
		}
	}
	var resp InputResponse
	if err := json.Unmarshal([]byte(`{"answer":42}`), &resp); err == nil || !strings.Contains(err.Error(), "[answer]") {
		t.Errorf("unrecognised response: %v", err)
	}
	if _, err := json.Marshal(InputResponse{}); err == nil {
		t.Error("encoding an empty input response must fail")
	}
}

func TestPrimitiveSchemaKinds(t *testing.T) {
	for in, want := range map[string]PrimitiveKind{
		`{"type":"string"}`:                                              KindString,
		`{"type":"string","format":"email"}`:                             KindString,
		`{"type":"number","minimum":1}`:                                  KindNumber,
		`{"type":"integer"}`:                                             KindInteger,
		`{"type":"boolean","default":true}`:                              KindBoolean,
		`{"type":"string","enum":["a"]}`:                                 KindEnum,
		`{"type":"string","enum":["a"],"enumNames":["A"]}`:               KindLegacyEnum,
		`{"type":"string","oneOf":[{"const":"a","title":"A"}]}`:          KindTitledEnum,
		`{"type":"array","items":{"type":"string","enum":["a"]}}`:        KindMultiEnum,
		`{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}}`: KindTitledMulti,
		`{"type":"object"}`:                                              KindUnknownSchema,
		`{"type":"array"}`:                                               KindUnknownSchema,
	} {
		var s PrimitiveSchema
		if err := json.Unmarshal([]byte(in), &s); err != nil {
			t.Fatal(err)
		}
		if got := s.Kind(); got != want {
			t.Errorf("Kind(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestElicitParamsValidate(t *testing.T) {
	schema := &RequestedSchema{Type: "object", Properties: map[string]PrimitiveSchema{}}
	for _, c := range []struct {
		p       ElicitParams
		wantErr string
	}{
		{ElicitParams{Message: "m", RequestedSchema: schema}, ""},
		{ElicitParams{Mode: ElicitForm, Message: "m", RequestedSchema: schema}, ""},
		{ElicitParams{Mode: ElicitURL, Message: "m", URL: "https://x"}, ""},
		{ElicitParams{Message: "m"}, "no requestedSchema"},
		{ElicitParams{Message: "m", RequestedSchema: schema, URL: "https://x"}, "has a url"},
		{ElicitParams{Mode: ElicitURL, Message: "m"}, "no url"},
		{ElicitParams{Mode: ElicitURL, Message: "m", URL: "u", RequestedSchema: schema}, "has a requestedSchema"},
		{ElicitParams{Mode: "popup", Message: "m"}, "unknown"},
	} {
		err := c.p.Validate()
		if (err == nil) != (c.wantErr == "") || (err != nil && !strings.Contains(err.Error(), c.wantErr)) {
			t.Errorf("Validate(%+v) = %v, want %q", c.p, err, c.wantErr)
		}
	}
	var none *ElicitationCapability
	if none.SupportsForm() || none.SupportsURL() {
		t.Error("absent capability supports nothing")
	}
	if c := (&ElicitationCapability{}); !c.SupportsForm() || c.SupportsURL() {
		t.Error("an empty elicitation capability means form only")
	}
	if c := (&ElicitationCapability{URL: Present()}); c.SupportsForm() || !c.SupportsURL() {
		t.Error("url only")
	}
}

func TestErrorData(t *testing.T) {
	for code, want := range map[int64]string{
		CodeUnsupportedProtocolVersion:      "*mcp.UnsupportedProtocolVersionData",
		CodeMissingRequiredClientCapability: "*mcp.MissingRequiredClientCapabilityData",
		CodeURLElicitationRequired:          "*mcp.URLElicitationRequiredData",
		CodeHeaderMismatch:                  "<nil>",
		-32603:                              "<nil>",
	} {
		if got := fmtType(NewErrorData(code)); got != want {
			t.Errorf("NewErrorData(%d) = %s, want %s", code, got, want)
		}
	}
}

func TestUnknownMembers(t *testing.T) {
	got, err := UnknownParamsMembers(spec.MethodToolsCall, json.RawMessage(`{"name":"x","arguments":{"any":1},"_meta":{"k":1},"bogus":true,"task":{"ttl":1,"a/b":2}}`))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/bogus", "/task/a~1b"}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("UnknownParamsMembers = %v, want %v", got, want)
	}
	got, err = UnknownResultMembers(spec.MethodToolsList, json.RawMessage(`{"tools":[{"name":"a","inputSchema":{"type":"object"},"color":"red"}],"resultType":"complete"}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "/tools/0/color" {
		t.Errorf("UnknownResultMembers = %v, want [/tools/0/color]", got)
	}
	if got, err := UnknownResultMembers(spec.MethodToolsCall, json.RawMessage(`{"content":[]}`)); err != nil || len(got) != 0 {
		t.Errorf("clean result: %v %v", got, err)
	}
	if _, err := UnknownParamsMembers("nope", json.RawMessage(`{}`)); err == nil {
		t.Error("unknown method must fail")
	}
}

func TestInputRequiredResultValidate(t *testing.T) {
	ok := InputRequiredResult{ResultBase: ResultBase{ResultType: ResultInputRequired}, RequestState: "s"}
	if err := ok.Validate(); err != nil {
		t.Errorf("valid result: %v", err)
	}
	withReq := InputRequiredResult{ResultBase: ResultBase{ResultType: ResultInputRequired},
		InputRequests: map[string]InputRequest{"r": {Method: spec.MethodRootsList}}}
	if err := withReq.Validate(); err != nil {
		t.Errorf("valid result with a request: %v", err)
	}
	for _, bad := range []InputRequiredResult{
		{ResultBase: ResultBase{ResultType: ResultInputRequired}},
		{RequestState: "s"},
		{ResultBase: ResultBase{ResultType: ResultInputRequired}, InputRequests: map[string]InputRequest{"x": {Method: "ping"}}},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate(%+v) succeeded, want an error", bad)
		}
	}
}
