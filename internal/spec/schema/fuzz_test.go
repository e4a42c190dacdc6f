package schema

import (
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
)

// The native fuzz targets of this package. Each file holding fuzz targets
// compiles on its own with the package's production files: OSS-Fuzz's
// compile_native_go_fuzzer (.clusterfuzzlite/build.sh) builds it alone.

// FuzzValidate makes sure no input makes Validate panic.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`, `[`, `[]`, `null`, `{"result":1}`, `{"method":7}`, "\xff"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, v := range []spec.Version{spec.V20251125, spec.V20260728} {
			for _, m := range []string{"", "tools/call"} {
				for _, vi := range Validate(v, spec.ServerToClient, m, raw) {
					if vi.Message == "" {
						t.Fatalf("violation without a message: %+v", vi)
					}
				}
			}
		}
	})
}
