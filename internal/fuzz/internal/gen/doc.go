// Package gen holds the fuzzer's generators: rapid generators of
// schema-valid messages of every method and version (Messages), of valid
// message sequences (Sequences) and of tool arguments from an input schema
// (ToolArguments), and the few protocol messages the fuzzer builds itself
// (the initialize handshake, the liveness probe, cancellations).
package gen
