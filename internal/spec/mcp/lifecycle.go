package mcp

// InitializeParams is the params of initialize (2024-11-05 through
// 2025-11-25; 2026-07-28 has no handshake).
type InitializeParams struct {
	Meta            Meta               `json:"_meta,omitzero"`
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ClientCapabilities `json:"capabilities"`
	ClientInfo      Implementation     `json:"clientInfo"`
}

// InitializeResult is the result of initialize (2024-11-05 through
// 2025-11-25).
type InitializeResult struct {
	ResultBase
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    ServerCapabilities `json:"capabilities"`
	ServerInfo      Implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
}

// InitializedParams is the params of notifications/initialized (2024-11-05
// through 2025-11-25).
type InitializedParams = NotificationParams

// ClientCapabilities is what a client supports (all versions). It is sent in
// initialize until 2025-11-25 and in every request's _meta in 2026-07-28.
type ClientCapabilities struct {
	// Experimental holds non-standard capabilities (all versions).
	Experimental map[string]Object `json:"experimental,omitzero"`
	// Extensions holds negotiated extensions keyed by identifier
	// (2026-07-28 on).
	Extensions map[string]Object `json:"extensions,omitzero"`
	// Roots is present when the client can list roots (all versions).
	Roots *RootsCapability `json:"roots,omitempty"`
	// Sampling is present when the client can sample an LLM (all versions).
	Sampling *SamplingCapability `json:"sampling,omitempty"`
	// Elicitation is present when the client can elicit input from the user
	// (2025-06-18 on).
	Elicitation *ElicitationCapability `json:"elicitation,omitempty"`
	// Tasks is present when the client supports tasks (2025-11-25).
	Tasks *ClientTasksCapability `json:"tasks,omitempty"`
}

// RootsCapability is the client's roots capability. ListChanged is
// 2024-11-05 through 2025-11-25 (the notification is gone in 2026-07-28).
type RootsCapability struct {
	ListChanged *bool `json:"listChanged,omitempty"`
}

// SamplingCapability is the client's sampling capability. Context and Tools
// are 2025-11-25 on: present when the client honours includeContext, and
// tools/toolChoice, respectively.
type SamplingCapability struct {
	Context Object `json:"context,omitzero"`
	Tools   Object `json:"tools,omitzero"`
}

// ElicitationCapability is the client's elicitation capability. Form and
// URL are 2025-11-25 on; an empty capability means form mode only.
type ElicitationCapability struct {
	Form Object `json:"form,omitzero"`
	URL  Object `json:"url,omitzero"`
}

// SupportsForm reports whether form-mode elicitation is supported: it is
// declared, or nothing is declared (the pre-2025-11-25 meaning).
func (c *ElicitationCapability) SupportsForm() bool {
	return c != nil && (c.Form != nil || c.URL == nil)
}

// SupportsURL reports whether URL-mode elicitation is declared.
func (c *ElicitationCapability) SupportsURL() bool { return c != nil && c.URL != nil }

// ClientTasksCapability is the client's task support (2025-11-25).
type ClientTasksCapability struct {
	// List is present when the client supports tasks/list.
	List Object `json:"list,omitzero"`
	// Cancel is present when the client supports tasks/cancel.
	Cancel Object `json:"cancel,omitzero"`
	// Requests names the server-to-client requests the client can run as
	// tasks.
	Requests *ClientTaskRequests `json:"requests,omitempty"`
}

// ClientTaskRequests lists the requests a client can run as tasks
// (2025-11-25).
type ClientTaskRequests struct {
	Sampling    *SamplingTaskRequests    `json:"sampling,omitempty"`
	Elicitation *ElicitationTaskRequests `json:"elicitation,omitempty"`
}

// SamplingTaskRequests marks sampling/createMessage as task-capable.
type SamplingTaskRequests struct {
	CreateMessage Object `json:"createMessage,omitzero"`
}

// ElicitationTaskRequests marks elicitation/create as task-capable.
type ElicitationTaskRequests struct {
	Create Object `json:"create,omitzero"`
}

// ServerCapabilities is what a server supports (all versions). It is sent in
// the initialize result until 2025-11-25 and in the server/discover result
// in 2026-07-28.
type ServerCapabilities struct {
	// Experimental holds non-standard capabilities (all versions).
	Experimental map[string]Object `json:"experimental,omitzero"`
	// Extensions holds supported extensions keyed by identifier (2026-07-28
	// on).
	Extensions map[string]Object `json:"extensions,omitzero"`
	// Logging is present when the server sends log messages (all versions).
	Logging Object `json:"logging,omitzero"`
	// Completions is present when the server offers argument completion
	// (2025-03-26 on).
	Completions Object `json:"completions,omitzero"`
	// Prompts is present when the server offers prompts.
	Prompts *ListChangedCapability `json:"prompts,omitempty"`
	// Resources is present when the server offers resources.
	Resources *ResourcesCapability `json:"resources,omitempty"`
	// Tools is present when the server offers tools.
	Tools *ListChangedCapability `json:"tools,omitempty"`
	// Tasks is present when the server supports tasks (2025-11-25).
	Tasks *ServerTasksCapability `json:"tasks,omitempty"`
}

// ListChangedCapability is the prompts or tools capability.
type ListChangedCapability struct {
	// ListChanged is true when the server sends list_changed notifications.
	ListChanged *bool `json:"listChanged,omitempty"`
}

// ResourcesCapability is the resources capability.
type ResourcesCapability struct {
	// Subscribe is true when the server supports resource subscriptions.
	Subscribe *bool `json:"subscribe,omitempty"`
	// ListChanged is true when the server sends list_changed notifications.
	ListChanged *bool `json:"listChanged,omitempty"`
}

// ServerTasksCapability is the server's task support (2025-11-25).
type ServerTasksCapability struct {
	List     Object              `json:"list,omitzero"`
	Cancel   Object              `json:"cancel,omitzero"`
	Requests *ServerTaskRequests `json:"requests,omitempty"`
}

// ServerTaskRequests lists the requests a server can run as tasks
// (2025-11-25).
type ServerTaskRequests struct {
	Tools *ToolsTaskRequests `json:"tools,omitempty"`
}

// ToolsTaskRequests marks tools/call as task-capable.
type ToolsTaskRequests struct {
	Call Object `json:"call,omitzero"`
}

// Bool returns a pointer to b, for the optional boolean members.
func Bool(b bool) *bool { return &b }
