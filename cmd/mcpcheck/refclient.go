package main

// referenceClientMain runs "mcpcheck reference client ARGS". It is replaced
// by the reference client's CLI when that is built.
func referenceClientMain(e *env, args []string) error {
	return notBuiltError{"'mcpcheck reference client'", "Reference client"}
}
