package mcp

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/spec/sharedtest"
)

// schemaTypes maps a place in the official schemas to the Go type that
// models it. A place is a definition name followed by property names, each
// step following $ref and merging allOf, anyOf and oneOf alternatives.
var schemaTypes = []struct {
	place string
	typ   any
}{
	{"Implementation", Implementation{}},
	{"Icon", Icon{}},
	{"Annotations", Annotations{}},
	{"Annotated.annotations", Annotations{}},
	{"Tool", Tool{}},
	{"ToolAnnotations", ToolAnnotations{}},
	{"ToolExecution", ToolExecution{}},
	{"Resource", Resource{}},
	{"ResourceTemplate", ResourceTemplate{}},
	{"TextResourceContents", ResourceContents{}},
	{"BlobResourceContents", ResourceContents{}},
	{"TextContent", TextContent{}},
	{"ImageContent", ImageContent{}},
	{"AudioContent", AudioContent{}},
	{"ResourceLink", ResourceLink{}},
	{"EmbeddedResource", EmbeddedResource{}},
	{"ToolUseContent", ToolUseContent{}},
	{"ToolResultContent", ToolResultContent{}},
	{"Prompt", Prompt{}},
	{"PromptArgument", PromptArgument{}},
	{"PromptMessage", PromptMessage{}},
	{"PromptReference", CompleteReference{}},
	{"ResourceReference", CompleteReference{}},
	{"ResourceTemplateReference", CompleteReference{}},
	{"Root", Root{}},
	{"SamplingMessage", SamplingMessage{}},
	{"ModelPreferences", ModelPreferences{}},
	{"ModelHint", ModelHint{}},
	{"ToolChoice", ToolChoice{}},
	{"ClientCapabilities", ClientCapabilities{}},
	{"ClientCapabilities.roots", RootsCapability{}},
	{"ClientCapabilities.sampling", SamplingCapability{}},
	{"ClientCapabilities.elicitation", ElicitationCapability{}},
	{"ClientCapabilities.tasks", ClientTasksCapability{}},
	{"ClientCapabilities.tasks.requests", ClientTaskRequests{}},
	{"ClientCapabilities.tasks.requests.sampling", SamplingTaskRequests{}},
	{"ClientCapabilities.tasks.requests.elicitation", ElicitationTaskRequests{}},
	{"ServerCapabilities", ServerCapabilities{}},
	{"ServerCapabilities.prompts", ListChangedCapability{}},
	{"ServerCapabilities.tools", ListChangedCapability{}},
	{"ServerCapabilities.resources", ResourcesCapability{}},
	{"ServerCapabilities.tasks", ServerTasksCapability{}},
	{"ServerCapabilities.tasks.requests", ServerTaskRequests{}},
	{"ServerCapabilities.tasks.requests.tools", ToolsTaskRequests{}},
	{"StringSchema", PrimitiveSchema{}},
	{"NumberSchema", PrimitiveSchema{}},
	{"BooleanSchema", PrimitiveSchema{}},
	{"EnumSchema", PrimitiveSchema{}},
	{"UntitledSingleSelectEnumSchema", PrimitiveSchema{}},
	{"TitledSingleSelectEnumSchema", PrimitiveSchema{}},
	{"TitledSingleSelectEnumSchema.oneOf", EnumOption{}},
	{"UntitledMultiSelectEnumSchema", PrimitiveSchema{}},
	{"UntitledMultiSelectEnumSchema.items", EnumItems{}},
	{"TitledMultiSelectEnumSchema", PrimitiveSchema{}},
	{"TitledMultiSelectEnumSchema.items", EnumItems{}},
	{"LegacyTitledEnumSchema", PrimitiveSchema{}},
	{"Task", Task{}},
	{"TaskMetadata", TaskMetadata{}},
	{"RelatedTaskMetadata", RelatedTaskMetadata{}},
	{"SubscriptionFilter", SubscriptionFilter{}},
	{"Result", ResultBase{}},
	{"CacheableResult", struct {
		ResultBase
		Cacheable
	}{}},
	{"PaginatedResult", struct {
		ResultBase
		PaginatedResult
	}{}},
	{"InitializeResult", InitializeResult{}},
	{"ListToolsResult", ListToolsResult{}},
	{"CallToolResult", CallToolResult{}},
	{"ListResourcesResult", ListResourcesResult{}},
	{"ListResourceTemplatesResult", ListResourceTemplatesResult{}},
	{"ReadResourceResult", ReadResourceResult{}},
	{"ListPromptsResult", ListPromptsResult{}},
	{"GetPromptResult", GetPromptResult{}},
	{"CompleteResult", CompleteResult{}},
	{"CompleteResult.completion", Completion{}},
	{"ListRootsResult", ListRootsResult{}},
	{"CreateMessageResult", CreateMessageResult{}},
	{"ElicitResult", ElicitResult{}},
	{"CreateTaskResult", CreateTaskResult{}},
	{"GetTaskResult", GetTaskResult{}},
	{"CancelTaskResult", CancelTaskResult{}},
	{"ListTasksResult", ListTasksResult{}},
	{"DiscoverResult", DiscoverResult{}},
	{"InputRequiredResult", InputRequiredResult{}},
	{"SubscriptionsListenResult", SubscriptionsListenResult{}},
	{"InitializeRequest.params", InitializeParams{}},
	{"PingRequest.params", RequestParams{}},
	{"ListRootsRequest.params", RequestParams{}},
	{"DiscoverRequest.params", RequestParams{}},
	{"ListToolsRequest.params", PaginatedParams{}},
	{"ListPromptsRequest.params", PaginatedParams{}},
	{"ListResourcesRequest.params", PaginatedParams{}},
	{"ListResourceTemplatesRequest.params", PaginatedParams{}},
	{"ListTasksRequest.params", PaginatedParams{}},
	{"CallToolRequest.params", CallToolParams{}},
	{"ReadResourceRequest.params", ReadResourceParams{}},
	{"SubscribeRequest.params", SubscribeParams{}},
	{"UnsubscribeRequest.params", UnsubscribeParams{}},
	{"GetPromptRequest.params", GetPromptParams{}},
	{"CompleteRequest.params", CompleteParams{}},
	{"CompleteRequest.params.ref", CompleteReference{}},
	{"CompleteRequest.params.argument", CompleteArgument{}},
	{"CompleteRequest.params.context", CompleteContext{}},
	{"SetLevelRequest.params", SetLevelParams{}},
	{"CreateMessageRequest.params", CreateMessageParams{}},
	{"ElicitRequest.params", ElicitParams{}},
	{"ElicitRequest.params.requestedSchema", RequestedSchema{}},
	{"GetTaskRequest.params", GetTaskParams{}},
	{"GetTaskPayloadRequest.params", GetTaskPayloadParams{}},
	{"CancelTaskRequest.params", CancelTaskParams{}},
	{"SubscriptionsListenRequest.params", SubscriptionsListenParams{}},
	{"InitializedNotification.params", NotificationParams{}},
	{"ToolListChangedNotification.params", NotificationParams{}},
	{"CancelledNotification.params", CancelledNotificationParams{}},
	{"ProgressNotification.params", ProgressNotificationParams{}},
	{"LoggingMessageNotification.params", LoggingMessageParams{}},
	{"ResourceUpdatedNotification.params", ResourceUpdatedParams{}},
	{"ElicitationCompleteNotification.params", ElicitationCompleteParams{}},
	{"TaskStatusNotification.params", TaskStatusParams{}},
	{"SubscriptionsAcknowledgedNotification.params", SubscriptionsAcknowledgedParams{}},
	{"UnsupportedProtocolVersionError.error.data", UnsupportedProtocolVersionData{}},
	{"MissingRequiredClientCapabilityError.error.data", MissingRequiredClientCapabilityData{}},
	{"URLElicitationRequiredError.error.data", URLElicitationRequiredData{}},
}

// goMembers lists the JSON member names of a struct type, following
// embedded structs.
func goMembers(t reflect.Type, into map[string]bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			goMembers(f.Type, into)
			continue
		}
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		into[name] = true
	}
}

// schemaNode resolves a place in one schema to the merged set of property
// names there, or nil when the place does not exist in that version.
func schemaNode(defs map[string]any, place string) map[string]bool {
	steps := strings.Split(place, ".")
	node, ok := defs[steps[0]]
	if !ok {
		return nil
	}
	nodes := expand(defs, node)
	for _, step := range steps[1:] {
		var next []any
		for _, n := range nodes {
			props, _ := n["properties"].(map[string]any)
			if p, ok := props[step]; ok {
				next = append(next, p)
			}
		}
		nodes = nil
		for _, n := range next {
			// Arrays: the members live on the items schema.
			if m, ok := n.(map[string]any); ok && m["items"] != nil && m["properties"] == nil {
				n = m["items"]
			}
			nodes = append(nodes, expand(defs, n)...)
		}
		if len(nodes) == 0 {
			return nil
		}
	}
	out := map[string]bool{}
	for _, n := range nodes {
		props, _ := n["properties"].(map[string]any)
		for k := range props {
			out[k] = true
		}
	}
	return out
}

// expand follows $ref and flattens allOf/anyOf/oneOf into the list of object
// schemas that contribute members.
func expand(defs map[string]any, n any) []map[string]any {
	m, ok := n.(map[string]any)
	if !ok {
		return nil
	}
	if ref, ok := m["$ref"].(string); ok {
		return expand(defs, defs[ref[strings.LastIndex(ref, "/")+1:]])
	}
	out := []map[string]any{m}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := m[k].([]any); ok {
			for _, x := range list {
				out = append(out, expand(defs, x)...)
			}
		}
	}
	return out
}

// goOnlyMembers are Go members that no schema defines at the mapped place,
// each with the reason it exists.
var goOnlyMembers = map[string]string{
	"GetTaskParams._meta":             paramsMeta,
	"GetTaskPayloadParams._meta":      paramsMeta,
	"CancelTaskParams._meta":          paramsMeta,
	"ElicitationCompleteParams._meta": paramsMeta,
	"InitializeResult.resultType":     noResultType,
	"CreateTaskResult.resultType":     noResultType,
	"GetTaskResult.resultType":        noResultType,
	"CancelTaskResult.resultType":     noResultType,
	"ListTasksResult.resultType":      noResultType,
	"CreateMessageResult.resultType":  noResultType,
	"ElicitResult.resultType":         noResultType,
	"ListRootsResult.resultType":      noResultType,
}

const (
	paramsMeta   = "the params of every request and notification may carry _meta (the base Request and Notification types define it); the schema's inline params object for this method just does not repeat it"
	noResultType = "comes from the shared ResultBase; this result exists only in versions without resultType, or is a 2026-07-28 input response, which carries none, so the member stays empty and is omitted"
)

// TestTypesCoverSchemas checks, for every version whose official schema is
// present, that each mapped Go type has a JSON member for every property
// the schema defines at that place; and that every Go member is defined by
// the schema of at least one version.
func TestTypesCoverSchemas(t *testing.T) {
	ran := false
	usedAnywhere := map[string]map[string]bool{} // place -> members some schema defines
	for _, v := range versionsForTest() {
		file := sharedtest.SchemaFile(v)
		if file == "" {
			continue
		}
		ran = true
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		defs, _ := doc["$defs"].(map[string]any)
		if defs == nil {
			defs, _ = doc["definitions"].(map[string]any)
		}
		checked := 0
		for _, st := range schemaTypes {
			props := schemaNode(defs, st.place)
			if props == nil {
				continue
			}
			checked++
			have := map[string]bool{}
			goMembers(reflect.TypeOf(st.typ), have)
			if c, ok := reflect.New(reflect.TypeOf(st.typ)).Interface().(Content); ok && c != nil {
				have["type"] = true // the discriminator; ContentBlock writes and reads it
			}
			var missing []string
			for p := range props {
				if !have[p] {
					missing = append(missing, p)
				}
			}
			sort.Strings(missing)
			if len(missing) > 0 {
				t.Errorf("%s: %s defines %v, which %T does not model", v, st.place, missing, st.typ)
			}
			if usedAnywhere[st.place] == nil {
				usedAnywhere[st.place] = map[string]bool{}
			}
			for p := range props {
				usedAnywhere[st.place][p] = true
			}
		}
		t.Logf("%s: %d schema places checked against the Go types", v, checked)
	}
	if !ran {
		t.Skip("official schemas not found; set MCPCHECK_SHARED to check the types against them")
	}
	// Members of a Go type that no version defines at any place it models.
	byType := map[reflect.Type]map[string]bool{}
	for _, st := range schemaTypes {
		rt := reflect.TypeOf(st.typ)
		if byType[rt] == nil {
			byType[rt] = map[string]bool{}
		}
		for p := range usedAnywhere[st.place] {
			byType[rt][p] = true
		}
	}
	for rt, defined := range byType {
		have := map[string]bool{}
		goMembers(rt, have)
		for m := range have {
			key := rt.Name() + "." + m
			if !defined[m] {
				if _, ok := goOnlyMembers[key]; !ok {
					t.Errorf("%s is defined by no schema version at any place %s models; remove it or list it in goOnlyMembers with a reason", key, rt)
				}
			}
		}
	}
}

// TestMetaKeysMatchSchemas checks that every reserved key the schemas'
// _meta objects define has a Meta* constant.
func TestMetaKeysMatchSchemas(t *testing.T) {
	known := map[string]bool{}
	for _, k := range []string{MetaProgressToken, MetaRelatedTask, MetaModelImmediateResponse, MetaProtocolVersion,
		MetaClientCapabilities, MetaClientInfo, MetaLogLevel, MetaServerInfo, MetaSubscriptionID,
		MetaTraceparent, MetaTracestate, MetaBaggage} {
		known[k] = true
	}
	ran := false
	for _, v := range versionsForTest() {
		file := sharedtest.SchemaFile(v)
		if file == "" {
			continue
		}
		ran = true
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		defs, _ := doc["$defs"].(map[string]any)
		if defs == nil {
			defs, _ = doc["definitions"].(map[string]any)
		}
		for name := range defs {
			if !strings.HasSuffix(name, "MetaObject") {
				continue
			}
			for k := range schemaNode(defs, name) {
				if !known[k] {
					t.Errorf("%s: %s defines _meta key %q, which has no Meta* constant", v, name, k)
				}
			}
		}
		// Inline _meta objects of request params (progressToken before 2026-07-28).
		for _, place := range []string{"PingRequest.params._meta", "CallToolRequest.params._meta"} {
			for k := range schemaNode(defs, place) {
				if !known[k] {
					t.Errorf("%s: %s defines _meta key %q, which has no Meta* constant", v, place, k)
				}
			}
		}
	}
	if !ran {
		t.Skip("official schemas not found")
	}
}
