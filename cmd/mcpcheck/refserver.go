package main

// referenceServerMain runs "mcpcheck reference server ARGS". It is replaced
// by the reference server's CLI when that is built.
func referenceServerMain(e *env, args []string) error {
	return notBuiltError{"'mcpcheck reference server'", "Reference server"}
}
