// Package oracle holds what the fuzzer judges with: Observation, the judge
// of the frames a server writes after each input (ids, shapes, schemas,
// versions), crash reading from stderr, the stable finding names (and the
// old ones replay still reads), and the cache of schema verdicts.
package oracle
