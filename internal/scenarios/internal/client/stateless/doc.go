// Package stateless holds the client suite's scenarios of the stateless
// era (2026-07-28): the baseline flow (mcpcheck-stateless-flow) and the
// scenarios that provoke a reaction (results without or with an unknown
// resultType, response headers in odd letter case, another server
// identity, the official header scenarios), with the stage helpers only
// they use. "stateless" is an era, not a check area: the checks that judge
// these scenarios stay in the files of their areas (base_stateless.go,
// versioning_stateless.go, transport/http_stateless.go and
// transport/stdio_stateless.go), and the helpers they share stay in the
// suite's package (stateless.go there).
package stateless
