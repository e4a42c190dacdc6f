// Package client holds mcpcheck's client conformance suite: mcpcheck plays
// the server (internal/harness/stage) and judges any MCP client, over stdio or
// HTTP, against the client-side requirements of the catalog, in every
// protocol version.
//
// # How a run works
//
// A run launches the client once per scenario. A Scenario is one way the
// stage plays the server: which fixtures it offers, what it provokes
// (requests to the client, a lost session, a closed stream, a refused
// version), which official conformance-suite scenario it stands for. The
// client learns the scenario from MCP_CONFORMANCE_SCENARIO (and the version
// from MCP_CONFORMANCE_PROTOCOL_VERSION), exactly as the official suite
// tells it, so clients that already act out that suite run unchanged; a
// client with no scenario harness at all is judged on whatever it does on
// its own plus everything the stage provokes. Scenarios run concurrently,
// each on its own case (its own URL, or its own relay token for stdio).
//
// Checks (Def) judge the recordings afterwards: every message each way,
// the HTTP heads, SSE events, stdin EOF, signals and exits. A check names
// the scenarios whose recordings it judges; with none it judges every
// scenario of its version. Checks that need the client to act (call a
// tool, follow a cursor) and find it did not are untestable, never passed
// and never failed; a check of a requirement that binds only a client
// doing something optional (following nextCursor, asking for progress,
// cancelling, using tasks, declaring sampling) is n/a instead when the
// client did it in none of the run's launches (given.go). The rules of internal/harness/rules judge messages here exactly
// as they judge a server's in the server suite, with the direction turned
// around.
//
// # Versions a client does not speak
//
// A version the client lacks is no failure. For 2026-07-28 the wire tells:
// a client that in none of its launches sent server/discover or a
// 2026-07-28 request, and whose initialize offered an older version, gets
// n/a for the checks of 2026-07-28 clients (Def.Unsupported keeps the few
// about meeting a server of a version it lacks). A dual-era client's
// server/discover probe in an older version's case, and its fallback
// initialize in a 2026-07-28 case, are held to the rules of the version
// each belongs to.
//
// # Hostile clients
//
// Every launch is bounded (Config.CaseTimeout); the harness stops a client
// still running then, and ends what a client that exited left running
// (both are noted in the recording, so what follows is never held against
// the client). Lines and bodies over the stage's limit are recorded by
// size and prefix, never kept whole.
//
// # Proofs beside checks
//
// Each Def declares its Proofs: a fault switch of the reference client
// (internal/reference/client.Faults) that breaks the requirement, the version and
// transport to run it in and the outcome it must produce.
// TestEveryCheckIsProvenToFire walks the registry; TestProofs runs them.
//
// # Layout
//
// registry.go (Def, Scenario, Proof, registration), runner.go (Config,
// Run), case.go (the view of one recording checks use), env.go (T), and one
// file per protocol area holding its scenarios and checks. The grown areas
// are sub-packages of this one: tasks, transport and authorization, and
// stateless for the scenarios of the stateless era (the checks judging
// them stay in their areas' files). They import this package and register
// into its registry, which lists every check in the order of the files
// (DIR/FILE read as DIR_FILE) and lines that registered it; what two or
// more areas use stays here (stateless.go, clienttasks.go, given.go,
// case.go). internal/scenarios/client is the suite's entry point: it imports every
// sub-package, so a user of the suite gets every check, and so does this
// package's external test file areas_test.go for the tests here.
package client
