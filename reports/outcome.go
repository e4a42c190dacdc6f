package reports

import (
	"fmt"
)

// Outcome is a check's verdict. The zero value is not a verdict: writers
// show a check whose outcome was never set as an error of the harness.
type Outcome int

// The outcomes, in the order reports list them.
const (
	// Pass: the target did what the requirements ask.
	Pass Outcome = iota + 1
	// Fail: the target broke a MUST or MUST NOT.
	Fail
	// Warn: the target broke a SHOULD or SHOULD NOT.
	Warn
	// NA: the check does not apply (capability not declared, or outside
	// the version window; for a client, also a requirement that binds only
	// a client doing something optional, such as following nextCursor,
	// asking for progress, cancelling or using tasks, when the client did
	// it in none of the run's launches). Never counted against the target.
	NA
	// Untestable: the check applies but could not be run (a needed fixture
	// or trigger is absent; for a client, it did the optional thing the
	// requirement binds somewhere in the run but not where the check could
	// see it, or the requirement asks it of every client). Reported, never
	// shown as green.
	Untestable
	// Error: the harness itself broke; the target was not judged.
	Error
)

// Outcomes lists every outcome in report order.
var Outcomes = []Outcome{Pass, Fail, Warn, NA, Untestable, Error}

var outcomeNames = [...]string{"unset", "pass", "fail", "warn", "na", "untestable", "error"}

// String is the outcome's name: pass, fail, warn, na, untestable or error
// ("unset" for the zero value).
func (o Outcome) String() string {
	if o < 0 || int(o) >= len(outcomeNames) {
		return fmt.Sprintf("outcome(%d)", int(o))
	}
	return outcomeNames[o]
}

// Label is the outcome as people read it: PASS, FAIL, WARN, N/A,
// UNTESTABLE, ERROR.
func (o Outcome) Label() string {
	switch o {
	case NA:
		return "N/A"
	case Pass, Fail, Warn, Untestable, Error:
		return upper(o.String())
	}
	return "UNSET"
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

// Valid reports whether o is one of Outcomes.
func (o Outcome) Valid() bool { return o >= Pass && o <= Error }

// ParseOutcome is the inverse of String. It also accepts "n/a".
func ParseOutcome(s string) (Outcome, error) {
	if s == "n/a" {
		return NA, nil
	}
	for _, o := range Outcomes {
		if o.String() == s {
			return o, nil
		}
	}
	return 0, fmt.Errorf("unknown outcome %q: want one of pass, fail, warn, na, untestable, error", s)
}

// MarshalText encodes the outcome as its name; the zero value is refused.
func (o Outcome) MarshalText() ([]byte, error) {
	if !o.Valid() {
		return nil, fmt.Errorf("outcome %d is not set: the harness must give every check an outcome", int(o))
	}
	return []byte(o.String()), nil
}

// UnmarshalText decodes an outcome name.
func (o *Outcome) UnmarshalText(b []byte) error {
	v, err := ParseOutcome(string(b))
	if err != nil {
		return err
	}
	*o = v
	return nil
}
