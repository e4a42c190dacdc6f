package schema

import (
	"errors"
	"testing"

	"github.com/mcpcheck/mcpcheck/spec"
)

// TestMethodTablesMatchSpec checks that every version's x-mcpcheck-methods
// table lists exactly the methods spec.Methods gives that version, with the
// same kind, direction and carrier flag.
func TestMethodTablesMatchSpec(t *testing.T) {
	for _, v := range spec.Versions {
		t.Run(string(v), func(t *testing.T) {
			table, err := Methods(v)
			if errors.Is(err, ErrNoSchema) {
				t.Skipf("version %s: spec/schema/data/%s is not there yet; the method table cannot be checked", v, FileName(v))
			}
			if err != nil {
				t.Fatalf("version %s: %v", v, err)
			}
			got := map[string]MethodInfo{}
			for _, m := range table {
				got[m.Name] = m
			}
			want := map[string]spec.Method{}
			for _, m := range spec.MethodsIn(v) {
				want[m.Name] = m
			}
			for name, m := range want {
				g, ok := got[name]
				if !ok {
					t.Errorf("version %s: method %q is in spec.Methods but missing from x-mcpcheck-methods in data/%s", v, name, FileName(v))
					continue
				}
				if g.Kind() != m.Kind {
					t.Errorf("version %s: method %q is a %s in spec.Methods but a %s in data/%s", v, name, kindName(m.Kind), kindName(g.Kind()), FileName(v))
				}
				if g.Direction != m.Direction {
					t.Errorf("version %s: method %q has direction %s in spec.Methods but %s in data/%s", v, name, m.Direction, g.Direction, FileName(v))
				}
				if g.Carrier != m.Carrier {
					t.Errorf("version %s: method %q has carrier=%v in spec.Methods but carrier=%v in data/%s", v, name, m.Carrier, g.Carrier, FileName(v))
				}
			}
			for name := range got {
				if _, ok := want[name]; !ok {
					t.Errorf("version %s: method %q is in x-mcpcheck-methods of data/%s but spec.Methods does not give it to this version", v, name, FileName(v))
				}
			}
		})
	}
}

func kindName(k spec.MessageKind) string {
	if k == spec.NotificationMethod {
		return "notification"
	}
	return "request"
}

// TestSchemasCompile compiles every definition of every embedded schema.
func TestSchemasCompile(t *testing.T) {
	for _, v := range Available() {
		s, err := load(v)
		if err != nil {
			t.Fatalf("version %s: %v", v, err)
		}
		for name := range s.defs {
			if _, err := s.def(name); err != nil {
				t.Errorf("version %s: %v", v, err)
			}
		}
	}
}
