package schema

import "embed"

// dataFS holds one JSON Schema document per protocol version, named
// data/<version>.json. Versions whose file is missing are reported as such
// by Load and Validate; they never panic.
//
//go:embed data/*.json
var dataFS embed.FS
