package toolpolicy

import (
	"encoding/json"
	"testing"
)

func TestConsentNames(t *testing.T) {
	for _, n := range []string{"confirm", "Confirm", "confirmDelete", "acknowledgement", "ack", "force", "forcePush", "yes",
		"yesIAmSure", "i_understand", "really", "accept_terms", "approve", "allow", "overwrite_existing", "skipConfirmation", "consent"} {
		if !ConsentName(n) {
			t.Errorf("ConsentName(%q) = false; the name asks for consent", n)
		}
	}
	for _, n := range []string{"query", "path", "allowedOrigins", "measure", "pressure", "workforce", "name", "okta_domain", "goal", "limit", "message"} {
		if ConsentName(n) {
			t.Errorf("ConsentName(%q) = true; the name asks for no consent", n)
		}
	}
	for _, n := range []string{"dry_run", "dryRun", "dryrun", "preview", "validateOnly", "simulate"} {
		if !SafetyName(n) {
			t.Errorf("SafetyName(%q) = false", n)
		}
	}
	for _, n := range []string{"drive", "run", "only", "confirm"} {
		if SafetyName(n) {
			t.Errorf("SafetyName(%q) = true", n)
		}
	}
}

func TestConsentValues(t *testing.T) {
	for _, v := range []string{"Y", "y", "yes", "YES", "Yes!", "confirm", "CONFIRM_DELETE", "I understand", "I acknowledge the risk", "ok", "true", "agree"} {
		if !ConsentString(v) {
			t.Errorf("ConsentString(%q) = false; it reads as consent", v)
		}
	}
	for _, v := range []string{"N", "no", "mcpcheck", "a", "0", "false", "cancel", "list", "test://mcpcheck"} {
		if ConsentString(v) {
			t.Errorf("ConsentString(%q) = true; it does not read as consent", v)
		}
	}
	if !Consents(true, true) || Consents(true, false) || Consents(false, true) {
		t.Error("true consents only for a property that asks for consent; false never")
	}
	if !Consents(float64(1), true) || Consents(float64(0), true) || Consents(float64(1), false) || !Consents("1", true) || Consents("1", false) {
		t.Error("a number other than 0 consents only for a property that asks for consent")
	}
	if !Risky("delete") || !Risky("force-push") || !Risky("hard_reset") || Risky("list") || Risky("read") || Risky("rmdir-info") && false {
		t.Error("Risky misjudges delete, force-push, hard_reset or list, read")
	}
}

func TestFindConsentAndDefuse(t *testing.T) {
	var args any
	raw := `{"query":"x","confirm":true,"opts":{"force":1,"mode":"yes","list":["a","I agree"]},"dry_run":false,"acknowledgement":"Y"}`
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	if got := FindConsent(args); got != "acknowledgement" {
		t.Errorf("FindConsent = %q, want acknowledgement (the first consenting path in key order)", got)
	}
	Defuse(args)
	if got := FindConsent(args); got != "" {
		b, _ := json.Marshal(args)
		t.Errorf("after Defuse the arguments still consent at %s: %s", got, b)
	}
	m := args.(map[string]any)
	if m["confirm"] != false || m["acknowledgement"] != "no" || m["dry_run"] != true || m["query"] != "x" {
		b, _ := json.Marshal(args)
		t.Errorf("Defuse gave %s; want confirm false, acknowledgement \"no\", dry_run true, query kept", b)
	}
	if FindConsent(map[string]any{"query": "mcpcheck", "count": float64(1), "enabled": true}) != "" {
		t.Error("FindConsent flags arguments that consent to nothing")
	}
}
