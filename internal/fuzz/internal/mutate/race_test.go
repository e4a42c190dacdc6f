//go:build race

package mutate

// raceEnabled scales the process-heavy tests down under the race detector,
// where every helper process is instrumented too.
const raceEnabled = true
