package mcp

// Reference types for completion/complete.
const (
	// RefPrompt refers to a prompt by name (all versions).
	RefPrompt = "ref/prompt"
	// RefResource refers to a resource template by URI template (all
	// versions; the type was named ResourceReference until 2025-03-26 and
	// ResourceTemplateReference from 2025-06-18).
	RefResource = "ref/resource"
)

// CompleteReference is what is being completed: a prompt (Type RefPrompt,
// Name, Title since 2025-06-18) or a resource template (Type RefResource,
// URI).
type CompleteReference struct {
	Type  string `json:"type"`
	Name  string `json:"name,omitempty"`
	Title string `json:"title,omitempty"`
	URI   string `json:"uri,omitempty"`
}

// PromptRef returns a reference to the prompt called name.
func PromptRef(name string) CompleteReference { return CompleteReference{Type: RefPrompt, Name: name} }

// ResourceRef returns a reference to the resource template uriTemplate.
func ResourceRef(uriTemplate string) CompleteReference {
	return CompleteReference{Type: RefResource, URI: uriTemplate}
}

// CompleteArgument is the argument being completed and its partial value.
type CompleteArgument struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// CompleteContext holds already-resolved arguments (2025-06-18 on).
type CompleteContext struct {
	Arguments map[string]string `json:"arguments,omitzero"`
}

// CompleteParams is the params of completion/complete (all versions;
// Context since 2025-06-18).
type CompleteParams struct {
	Meta     Meta              `json:"_meta,omitzero"`
	Ref      CompleteReference `json:"ref"`
	Argument CompleteArgument  `json:"argument"`
	Context  *CompleteContext  `json:"context,omitempty"`
}

// Completion is the set of suggestions in a CompleteResult.
type Completion struct {
	// Values holds at most 100 suggestions.
	Values []string `json:"values"`
	// Total is the number of suggestions available, which may exceed
	// len(Values).
	Total   *int64 `json:"total,omitempty"`
	HasMore *bool  `json:"hasMore,omitempty"`
}

// CompleteResult is the result of completion/complete (all versions).
type CompleteResult struct {
	ResultBase
	Completion Completion `json:"completion"`
}
