package reports

import "time"

// humanDuration prints d as people read a duration, not to the nanosecond:
// a tenth of a second from one second up ("12.1s", "2m3.5s"), whole
// milliseconds below ("45ms"), "<1ms" for less than a millisecond (and
// more than nothing), "0s" for nothing. Every writer prints durations
// through it; the JSON report keeps the exact nanoseconds.
func humanDuration(d time.Duration) string {
	neg := d < 0
	if neg {
		d = -d
	}
	var s string
	switch {
	case d == 0:
		return "0s"
	case d >= time.Second:
		s = d.Round(100 * time.Millisecond).String()
	case d >= time.Millisecond:
		s = d.Round(time.Millisecond).String()
	default:
		s = "<1ms"
	}
	if neg {
		s = "-" + s
	}
	return s
}
