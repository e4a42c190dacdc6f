// Package target describes what mcpcheck tests and opens connections to
// it: a stdio command (run in its own process group, always stopped as a
// group: stdin closed, then SIGTERM, then SIGKILL, each after a grace
// period; stderr kept in a bounded ring buffer) or an HTTP URL whose
// transport is given or detected (2026-07-28 server/discover, then a
// streamable HTTP initialize, then the 2024-11-05 HTTP+SSE GET, following
// the specification's backwards-compatibility rules).
package target
