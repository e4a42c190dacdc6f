// Package server holds mcpcheck's server conformance suite (its entry point
// is the facade package scenarios): checks that
// judge an MCP server over any transport, one file per protocol area, each
// check citing requirement IDs of spec/catalog. The same suites run from
// the mcpcheck binary (Run, from cmd/mcpcheck) and under go test (against
// the reference server, built into a temporary directory and started as
// "mcpcheck reference server --stdio").
//
// # Layout
//
//	doc.go         this documentation
//	labels.go      the label helpers (Area, Level, Version, Transport, Role, Fixture, Mode) of the shared framework's frozen label registry (internal/scenarios/suite)
//	registry.go    Def (suite.Def[*T]), Register, Checks, Lookup, CheckedRequirements: the server checks' registry (a suite.Registry)
//	exclusions.go  Exclusions: requirement ID -> why it has no check
//	runner.go      Config, Run, Result: plans the specs and runs them against a target
//	               with the shared scheduler (internal/scenarios/suite: Spec, RunSpecs)
//	env.go         T (what a check body gets), Conn, Sess, pools, observations
//	helpers.go     small helpers shared by area files
//	base_jsonrpc.go lifecycle.go ping.go ...   the areas: AREA.go or AREA_*.go
//	               declares the checks of catalog area AREA ('-' as '_'), whose IDs read AREA/name
//	helpers_http.go the HTTP helpers areas share (plain requests, the GET stream, 2026-07-28 params)
//	authorization/ tasks/ transport/   the area packages of the grown areas: each imports
//	               this package, registers its checks into its registry and keeps the
//	               helpers only its checks use; a file DIR/FILE.go reads as DIR_FILE.go
//	               in the rule above. The facade (scenarios) and areas_test.go import them
//
// # How a run works
//
// Run takes a target (stdio command or URL), the protocol versions, a label
// filter and timeouts. For each version it opens one pooled session
// (harness.Pool of harness.Shared, keyed by version: a target is started
// once per version, not once per check), records whether the server speaks
// the version and what it declared, then runs every registered check as a
// spec labelled with its area, level, version, role, transport, mode
// and fixtures: first the active checks in listing order (by the file and
// line that registered them, see suite.Caller), then the
// passive ones, which judge everything the target sent during the version
// (every frame on every connection of the version is kept, bounded, for
// them; every message is also schema-validated by the harness sessions).
// Verdicts: pass; fail (a MUST broken); warn (a SHOULD broken); n/a (outside
// the version window, a capability not declared, a version the server does
// not speak, a transport the check is not about); untestable (a fixture
// absent: never green); error (the harness broke). Every run uses
// the one scheduler of internal/scenarios/suite (suite.RunSpecs), whatever its
// Parallel; the label filter keeps Ginkgo's label-filter language.
//
// Checks run concurrently (Config.Parallel, by default 12 over HTTP and 4
// per core, 8 to 16, over stdio): the
// versions one after another but overlapping (SpecConfig.Overlap: a
// version's checks start while the last ones of the version before still
// run, once its exclusive checks have run), within a version the active
// checks Parallel at a time, then the passive ones. A check that changes what every
// session of the server shares, or watches a channel where other sessions'
// traffic shows, is Def.Exclusive and runs alone, but for the isolated
// checks (Def.Isolated: traffic on their own sessions only, nothing
// changed that another session sees, a verdict resting on what their own
// requests caused), which start first and overlap everything; checks that
// share state only among themselves form a Def.Group and never overlap. Each check gets its
// own transcript recorder, attached to the connections it opens or
// borrows, and the report lists checks in listing order: outcomes
// and reports do not depend on Parallel (TestParallelOutcomesAgainstReference,
// TestParallelFaultRows). Parallel 1 is the same scheduler with one
// slot: every check after the other.
//
// # Adding an area file
//
// 1. Create AREA.go or AREA_topic.go (files named after the catalog area
// of the checks they declare, '-' written '_': tools.go, resources.go,
// transport/http_sse.go, ...; the check IDs read AREA/name, see
// internal/scenarios/suite). A file of an area package (authorization/,
// tasks/, transport/) calls server.Register, server.Def and so on, and
// keeps the helpers only its checks use. A new area package is imported
// by the facade (scenarios) and areas_test.go. Register the checks from a
// package-level var, each declared once:
//
//	var _ = Register(
//		Def{
//			ID:           "tools/unknown-tool",            // AREA/what; stable, unique
//			Area:         "tools",                         // a catalog area (catalog.Areas)
//			Title:        "calling an unknown tool is refused with -32602",
//			Requirements: []string{"tools.errors.unknown-tool"}, // catalog IDs, server side, MUST/SHOULD
//			Labels:       []string{Fixture("test_simple_text")}, // optional; see labels.go
//			Body: func(t *T) {
//				if !t.RequireCapability("tools") { // n/a when not declared
//					return
//				}
//				c := t.Session()              // pooled, initialized session of t.Version()
//				s := c.S()                    // era-neutral: Stateful or Stateless
//				id, st, err := s.Request(t.Ctx, "tools/call", map[string]any{"name": "mcpcheck-no-such-tool"})
//				if err != nil {
//					t.Error(err)
//					return
//				}
//				t.Judge(s.WaitFor(t.Ctx, expect.Options{Stream: st, Timeout: t.StepTimeout()},
//					expect.Error(id, jsonrpc.InvalidParams)))
//			},
//		},
//	)
//
// 2. Cite the catalog: `mcpcheck spec list --role server --testability wire
// --area AREA` lists what the area must cover, `mcpcheck spec show ID` one
// record. The levels of the cited records decide fail versus warn, and
// their version windows gate the check (outside them it is n/a without
// running). TestRegistryCitesKnownServerRequirements fails on an unknown ID,
// a client-side ID or a MAY.
//
// 3. Gate honestly, never green by default:
//   - capabilities: t.RequireCapability("resources.subscribe") (n/a);
//   - versions: Def.Since/Until/Eras narrow further than the records;
//   - transports: Def.Transports ([]string{"stdio"}) or t.Stdio();
//   - fixtures: t.RequireTool("test_tool_with_logging") or
//     t.RequireFixture(ok, why) (untestable), and label the check with
//     Fixture(name) (add the name to fixtureNames in internal/scenarios/suite/labels.go, or register it with FeatureFixture);
//   - version support: checks are n/a when the server does not speak the
//     version, unless Def.Unsupported (negotiation checks).
//   - tool calls: a check that calls the target's tools black-box picks
//     them with t.CallableTools and their arguments with t.ToolArgs or
//     toolArgSets(t, tool) (the run's tool policy, --call-tools and
//     --tool-args; tools_policy.go), never by annotations of its own, and
//     says what the policy left out with t.PolicyReason or toolsSkipped
//     (untestable, never pass); fixtures named by the suites (test_*,
//     ref_*) are called whatever the policy.
//
// 4. Sessions: t.Session() borrows an initialized (2024-11-05..2025-11-25)
// or discovered (2026-07-28) session; call t.Taint() when the check leaves
// it in a state other checks must not see (broken bytes sent, log level
// changed, subscriptions). t.Fresh() is a new connection that has sent
// nothing (handshake checks). Both are released at the end of the check.
// Other checks run at the same time on sessions of their own: mark a check
// Exclusive when it changes state every session of the server shares (a
// list, a log level, what is announced to listeners), watches a channel
// where that shows (a subscriptions/listen stream) or compares what the
// server says at two moments; give checks that share state only among
// themselves a Group. When in doubt, Exclusive. Mark a check Isolated only
// when nothing another check does can change its verdict and it changes
// nothing another session sees (its own session, its own request ids and
// progress tokens, neutral fixtures): it then overlaps exclusive checks
// too. When in doubt, not Isolated.
// Sentinel(ctx, s) sends ping (or server/discover) to know earlier input was
// processed; t.WaitQuiet watches a short window for what must not arrive.
// Never sleep: wait for frames with expect, and bound every wait.
//
// 5. Say what was expected of the target and what it did: t.Judge and
// t.JudgeReply take Expected/Actual from the expect result; t.Fail,
// t.Violation(req, expected, actual) and t.Saw for the rest.
//
// 6. Passive checks (Def.Passive) read t.Observed() (every frame of the
// version, with the method each response answers) and t.SessionFindings()
// (schema violations, undeclared capabilities) and end n/a when there was
// nothing to judge; t.JudgeObserved holds every observation of one kind
// to a rule that way. Each observation also carries its session's context
// (passive_session.go): Observation.Session, what the client of its
// connection declared in initialize and what the server declared to it,
// and Observation.Place, where the frame stands relative to what that
// session sent (its request's stream, an earlier answer, the state of a
// progress token or a subscription, the request a log message can belong
// to). Judge unprompted traffic against them, never against the run's
// defaults, and end with t.ObservedUnjudged, which says untestable when
// frames were dropped over the run's bounds.
//
// 7. Coverage: a wire-testable server MUST/SHOULD with no check gets an
// entry in Exclusions with the reason (Exclude, from the area file's
// init), or stays missing in `mcpcheck spec coverage`. Raise coverageFloor in registry_test.go when coverage grows.
//
// 8. Prove it fires: when the reference server has a fault switch for the
// requirement (`mcpcheck reference server --list-faults`), name it in the
// Def's Proofs (fault, version, transport, the outcome it must give);
// TestProofs runs each proof against the faulty server and checks the
// outcome and its evidence.
//
// 9. Helpers: T's methods are the core every area uses (sessions,
// verdicts, the tool policy, waits). A helper one area needs is a function
// of that area taking the T (toolsVerdict(t, ...) in tools_results.go,
// subsListen(t, ...) in subscriptions.go), in the area's file or, for the
// areas with a directory (tasks, transport, authorization), in its package.
package server
