package reports

import (
	"testing"
	"time"
)

func TestHumanDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                       "0s",
		7444 * time.Nanosecond:  "<1ms",
		999 * time.Microsecond:  "<1ms",
		1500 * time.Microsecond: "2ms",
		45*time.Millisecond + 400*time.Microsecond: "45ms",
		2620782904 * time.Nanosecond:               "2.6s",
		12057304852 * time.Nanosecond:              "12.1s",
		123*time.Second + 456*time.Millisecond:     "2m3.5s",
		-1500 * time.Millisecond:                   "-1.5s",
	} {
		if got := humanDuration(d); got != want {
			t.Errorf("humanDuration(%d) = %q, want %q", d, got, want)
		}
	}
}
