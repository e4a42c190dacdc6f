package mutate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/gen"
	"github.com/mcpcheck/mcpcheck/spec"
)

// TestMarshalRepeatedIsMarshal checks that marshalRepeated gives the bytes
// marshal gives for the repeated string, for every unit json/huge-string
// uses (escaped or not) and for generated messages of each version.
func TestMarshalRepeatedIsMarshal(t *testing.T) {
	for _, v := range []spec.Version{spec.V20251125, spec.Latest} {
		for seed := uint64(0); seed < 40; seed++ {
			b, err := MakeBase(v, seed, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, unit := range []string{"a", "é", "😀", "\\", "<\"\n"} {
				val := cloneValue(b.Msg.Value).(map[string]any)
				params, _ := val[payloadKey(val)].(map[string]any)
				if params == nil {
					params = map[string]any{}
					val[payloadKey(val)] = params
				}
				got := marshalRepeated(val, params, "huge", unit, 1000)
				params["huge"] = strings.Repeat(unit, 1000)
				if want := gen.Marshal(val); !bytes.Equal(got, want) {
					t.Fatalf("%s seed %d unit %q:\n got %.300s\nwant %.300s", v, seed, unit, got, want)
				}
			}
		}
	}
}
