package spec

import "testing"

func TestVersionsAreOrderedAndParse(t *testing.T) {
	for i := 1; i < len(Versions); i++ {
		if Versions[i-1].Compare(Versions[i]) >= 0 {
			t.Errorf("Versions must be oldest first: %s before %s", Versions[i-1], Versions[i])
		}
	}
	if Versions[len(Versions)-1] != Latest {
		t.Errorf("Latest is %s, the newest listed version is %s", Latest, Versions[len(Versions)-1])
	}
	for _, v := range Versions {
		got, err := ParseVersion(" " + string(v) + " ")
		if err != nil || got != v {
			t.Errorf("ParseVersion(%q) = %q, %v", v, got, err)
		}
	}
	if _, err := ParseVersion("2025-01-01"); err == nil {
		t.Error("ParseVersion must refuse a date that is not a released version")
	}
}

func TestErasAndWindows(t *testing.T) {
	for v, want := range map[Version]Era{V20241105: Stateful, V20251125: Stateful, V20260728: Stateless} {
		if v.Era() != want {
			t.Errorf("%s: era %s, want %s", v, v.Era(), want)
		}
	}
	if !V20250618.Within(V20250326, "") || V20241105.Within(V20250326, V20251125) || !V20251125.Within(V20251125, V20251125) {
		t.Error("Within must treat the range as closed and an empty end as the latest version")
	}
}

func TestMethodTable(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range Methods {
		if !m.Since.Known() || (m.Until != "" && !m.Until.Known()) {
			t.Errorf("%s: unknown version bound %q..%q", m.Name, m.Since, m.Until)
		}
		for _, v := range Versions {
			if !m.In(v) {
				continue
			}
			key := string(v) + " " + m.Name
			if seen[key] {
				t.Errorf("%s is defined twice in %s", m.Name, v)
			}
			seen[key] = true
		}
	}
	if _, ok := LookupMethod(V20260728, MethodInitialize); ok {
		t.Error("initialize does not exist in 2026-07-28")
	}
	if m, ok := LookupMethod(V20260728, MethodSamplingCreateMessage); !ok || !m.Carrier {
		t.Error("in 2026-07-28 sampling/createMessage exists only as an input-request carrier")
	}
	if m, ok := LookupMethod(V20251125, MethodPing); !ok || !m.Direction.Allows(ServerToClient) || !m.Direction.Allows(ClientToServer) {
		t.Error("ping may be sent by either side through 2025-11-25")
	}
	if n := len(MethodsIn(V20241105)); n != 24 {
		t.Errorf("2024-11-05 defines 24 methods, the table has %d", n)
	}
}
