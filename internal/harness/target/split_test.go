package target

import (
	"reflect"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	for in, want := range map[string][]string{
		`node server.js`:                  {"node", "server.js"},
		`  a   b  `:                       {"a", "b"},
		`sh -c 'echo "hi there"; exit 3'`: {"sh", "-c", `echo "hi there"; exit 3`},
		`a "b c" d\ e`:                    {"a", "b c", "d e"},
		`a "x\"y"`:                        {"a", `x"y`},
		`''`:                              {""},
	} {
		got, err := SplitCommand(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("SplitCommand(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{``, `   `, `a 'b`, `a "b`, `a \`} {
		if _, err := SplitCommand(bad); err == nil {
			t.Errorf("SplitCommand(%q): want an error, got none", bad)
		}
	}
}
