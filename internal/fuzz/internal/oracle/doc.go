// Package oracle holds what the fuzzer judges with: Observation, the judge
// of the frames a server writes after each input (ids, shapes, schemas,
// versions) and of what a client writes to the stage (JudgeClient), crash
// reading from a server's or a client's stderr (ClientCrash), the stable
// finding names (and the old ones replay still reads), and the cache of
// schema verdicts.
package oracle
