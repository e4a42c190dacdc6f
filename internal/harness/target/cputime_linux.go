package target

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// userHZ is the unit of the times in /proc/PID/stat (USER_HZ, 100 on
// Linux whatever the kernel's own tick rate).
const userHZ = 100

// CPUTime returns the processor time the process has used so far, with
// that of the children it has waited for (a wrapper such as sh or npx that
// runs the server as its child counts it once the child ended; a wrapper
// that exec's counts it all), and false when it cannot be read (the
// process is gone, or this is not Linux).
func (p *Process) CPUTime() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.Pid()) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name, in parentheses, may hold spaces: the fields
	// after its closing parenthesis are what count (state is field 3,
	// utime field 14).
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 15 {
		return 0, false
	}
	var ticks int64
	for _, s := range f[11:15] { // utime, stime, cutime, cstime
		n, err := strconv.ParseInt(string(s), 10, 64)
		if err != nil {
			return 0, false
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / userHZ, true
}

// Started is when the process was started.
func (p *Process) Started() time.Time { return p.started }
