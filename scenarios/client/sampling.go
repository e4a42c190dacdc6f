package client

// Sampling: whether a client samples only when it declared the capability
// is judged with elicitation (elicitation.go), on the scenario that asks
// for what a client did not declare.

func init() {
	exclude(map[string]string{
		"sampling.request.client-honours-max-tokens": "a token is whatever the client's model's tokenizer makes of the text, and the wire shows neither the model's tokenizer nor a token count: no bound on the characters of a result follows from maxTokens, so no answer can be shown to exceed it",
	})
}
