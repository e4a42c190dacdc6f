package spec

import "sort"

// Direction says which peer sends a message.
type Direction int

const (
	// ClientToServer messages are sent by the client and handled by the server.
	ClientToServer Direction = iota + 1
	// ServerToClient messages are sent by the server and handled by the client.
	ServerToClient
	// Both means either peer may send the message.
	Both
)

// String names the direction as it appears in reports and flags.
func (d Direction) String() string {
	switch d {
	case ClientToServer:
		return "client-to-server"
	case ServerToClient:
		return "server-to-client"
	case Both:
		return "both"
	}
	return "unknown"
}

// Opposite is the peer that receives what d sends: ServerToClient for
// ClientToServer and the other way round; 0 for anything else.
func (d Direction) Opposite() Direction {
	switch d {
	case ClientToServer:
		return ServerToClient
	case ServerToClient:
		return ClientToServer
	}
	return 0
}

// Allows reports whether a message of direction d may be sent the way
// "from" says (ClientToServer or ServerToClient).
func (d Direction) Allows(from Direction) bool { return d == Both || d == from }

// MessageKind says whether a method is a request (expects a response) or a
// notification.
type MessageKind int

const (
	// RequestMethod expects a response.
	RequestMethod MessageKind = iota + 1
	// NotificationMethod expects none.
	NotificationMethod
)

// Method describes one MCP method: who sends it, whether it is a request or
// a notification, and which versions define it. Until is empty while the
// method is still part of the latest version.
type Method struct {
	Name      string
	Kind      MessageKind
	Direction Direction
	Since     Version
	Until     Version
	// Carrier is true for the 2026-07-28 server-initiated request shapes that
	// no longer travel as JSON-RPC requests but only inside a multi round-trip
	// result's inputRequests (sampling, elicitation, roots).
	Carrier bool
}

// In reports whether the method exists in version v.
func (m Method) In(v Version) bool { return v.Within(m.Since, m.Until) }

// Method names of every released version.
const (
	MethodInitialize               = "initialize"
	MethodInitialized              = "notifications/initialized"
	MethodPing                     = "ping"
	MethodCancelled                = "notifications/cancelled"
	MethodProgress                 = "notifications/progress"
	MethodToolsList                = "tools/list"
	MethodToolsCall                = "tools/call"
	MethodToolsListChanged         = "notifications/tools/list_changed"
	MethodResourcesList            = "resources/list"
	MethodResourcesRead            = "resources/read"
	MethodResourcesTemplatesList   = "resources/templates/list"
	MethodResourcesSubscribe       = "resources/subscribe"
	MethodResourcesUnsubscribe     = "resources/unsubscribe"
	MethodResourcesListChanged     = "notifications/resources/list_changed"
	MethodResourcesUpdated         = "notifications/resources/updated"
	MethodPromptsList              = "prompts/list"
	MethodPromptsGet               = "prompts/get"
	MethodPromptsListChanged       = "notifications/prompts/list_changed"
	MethodCompletionComplete       = "completion/complete"
	MethodLoggingSetLevel          = "logging/setLevel"
	MethodLoggingMessage           = "notifications/message"
	MethodRootsList                = "roots/list"
	MethodRootsListChanged         = "notifications/roots/list_changed"
	MethodSamplingCreateMessage    = "sampling/createMessage"
	MethodElicitationCreate        = "elicitation/create"
	MethodElicitationComplete      = "notifications/elicitation/complete"
	MethodTasksGet                 = "tasks/get"
	MethodTasksResult              = "tasks/result"
	MethodTasksList                = "tasks/list"
	MethodTasksCancel              = "tasks/cancel"
	MethodTasksStatus              = "notifications/tasks/status"
	MethodServerDiscover           = "server/discover"
	MethodSubscriptionsListen      = "subscriptions/listen"
	MethodSubscriptionsAcknowledge = "notifications/subscriptions/acknowledged"
)

// Methods is every method of every released version. Tasks in 2026-07-28
// moved to an extension and are not listed here as core methods.
var Methods = []Method{
	{Name: MethodInitialize, Kind: RequestMethod, Direction: ClientToServer, Since: V20241105, Until: V20251125},
	{Name: MethodInitialized, Kind: NotificationMethod, Direction: ClientToServer, Since: V20241105, Until: V20251125},
	{Name: MethodPing, Kind: RequestMethod, Direction: Both, Since: V20241105, Until: V20251125},
	{Name: MethodCancelled, Kind: NotificationMethod, Direction: Both, Since: V20241105},
	{Name: MethodProgress, Kind: NotificationMethod, Direction: Both, Since: V20241105, Until: V20251125},
	// 2026-07-28 has no server-to-client requests, so only servers report
	// progress (the schema's ClientNotification is notifications/cancelled only).
	{Name: MethodProgress, Kind: NotificationMethod, Direction: ServerToClient, Since: V20260728},
	{Name: MethodToolsList, Kind: RequestMethod, Direction: ClientToServer, Since: V20241105},
	{Name: MethodToolsCall, Kind: RequestMethod, Direction: ClientToServer, Since: V20241105},
	{Name: MethodToolsListChanged, Kind: NotificationMethod, Direction: ServerToClient, Since: V20241105},
	{Name: MethodResourcesList, Kind: RequestMethod, Direction: ClientToServer, Since: V20241105},
	{Name: MethodResourcesRead, Kind: RequestMethod, Direction: ClientToServer, Since: V20241105},
	{Name: MethodResourcesTemplatesList, Kind: RequestMethod, Direction: ClientToServer, Since: V20241105},
	{Name: MethodResourcesSubscribe, Kind: RequestMethod, Direction: ClientToServer, Since: V20241105, Until: V20251125},
	{Name: MethodResourcesUnsubscribe, Kind: RequestMethod, Direction: ClientToServer, Since: V20241105, Until: V20251125},
	{Name: MethodResourcesListChanged, Kind: NotificationMethod, Direction: ServerToClient, Since: V20241105},
	{Name: MethodResourcesUpdated, Kind: NotificationMethod, Direction: ServerToClient, Since: V20241105},
	{Name: MethodPromptsList, Kind: RequestMethod, Direction: ClientToServer, Since: V20241105},
	{Name: MethodPromptsGet, Kind: RequestMethod, Direction: ClientToServer, Since: V20241105},
	{Name: MethodPromptsListChanged, Kind: NotificationMethod, Direction: ServerToClient, Since: V20241105},
	{Name: MethodCompletionComplete, Kind: RequestMethod, Direction: ClientToServer, Since: V20241105},
	{Name: MethodLoggingSetLevel, Kind: RequestMethod, Direction: ClientToServer, Since: V20241105, Until: V20251125},
	{Name: MethodLoggingMessage, Kind: NotificationMethod, Direction: ServerToClient, Since: V20241105},
	{Name: MethodRootsList, Kind: RequestMethod, Direction: ServerToClient, Since: V20241105, Until: V20251125},
	{Name: MethodRootsList, Kind: RequestMethod, Direction: ServerToClient, Since: V20260728, Carrier: true},
	{Name: MethodRootsListChanged, Kind: NotificationMethod, Direction: ClientToServer, Since: V20241105, Until: V20251125},
	{Name: MethodSamplingCreateMessage, Kind: RequestMethod, Direction: ServerToClient, Since: V20241105, Until: V20251125},
	{Name: MethodSamplingCreateMessage, Kind: RequestMethod, Direction: ServerToClient, Since: V20260728, Carrier: true},
	{Name: MethodElicitationCreate, Kind: RequestMethod, Direction: ServerToClient, Since: V20250618, Until: V20251125},
	{Name: MethodElicitationCreate, Kind: RequestMethod, Direction: ServerToClient, Since: V20260728, Carrier: true},
	{Name: MethodElicitationComplete, Kind: NotificationMethod, Direction: ServerToClient, Since: V20251125, Until: V20251125},
	{Name: MethodTasksGet, Kind: RequestMethod, Direction: Both, Since: V20251125, Until: V20251125},
	{Name: MethodTasksResult, Kind: RequestMethod, Direction: Both, Since: V20251125, Until: V20251125},
	{Name: MethodTasksList, Kind: RequestMethod, Direction: Both, Since: V20251125, Until: V20251125},
	{Name: MethodTasksCancel, Kind: RequestMethod, Direction: Both, Since: V20251125, Until: V20251125},
	{Name: MethodTasksStatus, Kind: NotificationMethod, Direction: Both, Since: V20251125, Until: V20251125},
	{Name: MethodServerDiscover, Kind: RequestMethod, Direction: ClientToServer, Since: V20260728},
	{Name: MethodSubscriptionsListen, Kind: RequestMethod, Direction: ClientToServer, Since: V20260728},
	{Name: MethodSubscriptionsAcknowledge, Kind: NotificationMethod, Direction: ServerToClient, Since: V20260728},
}

// LookupMethod returns the method called name as version v defines it.
func LookupMethod(v Version, name string) (Method, bool) {
	for _, m := range Methods {
		if m.Name == name && m.In(v) {
			return m, true
		}
	}
	return Method{}, false
}

// MethodsIn returns the methods version v defines, sorted by name. Carrier
// shapes of the stateless era are included; filter on Carrier to leave them out.
func MethodsIn(v Version) []Method {
	var out []Method
	for _, m := range Methods {
		if m.In(v) {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
