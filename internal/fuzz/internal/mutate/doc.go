// Package mutate holds the fuzzer's inputs and mutators: Input (with
// ClientPlan, HTTPReply and SSEDamage for client campaigns), the Base a
// mutator transforms, Mutator with its cost and transport, every family
// (bytes, framing, json, protocol, http, and the client-only server, reply
// and sse), and the schedules that draw mutators by cost.
package mutate
