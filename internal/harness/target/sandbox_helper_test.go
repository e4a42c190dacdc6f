package target

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// sandboxHelper runs the helper modes of the sandbox tests (see helper);
// each prints one JSON line on stdout and most then wait for stdin's end.
func sandboxHelper(mode string) {
	say := func(v any) {
		b, _ := json.Marshal(v)
		os.Stdout.Write(append(b, '\n'))
	}
	self, _ := os.Executable()
	spawn := func(mode string, setsid bool) *exec.Cmd {
		c := exec.Command(self)
		c.Env = append(os.Environ(), helperEnv+"="+mode)
		if setsid {
			c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		}
		return c
	}
	switch mode {
	case "sbx-env": // where it runs and what it was given
		wd, _ := os.Getwd()
		env := map[string]string{"cwd": wd}
		for _, k := range []string{"HOME", "TMPDIR", "TMP", "TEMP", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", SandboxEnv, "SBX_PASS", "arg1", "arg0"} {
			env[k] = os.Getenv(k)
		}
		if len(os.Args) > 1 {
			env["arg1"] = os.Args[1]
		}
		env["arg0"] = os.Args[0]
		say(env)
		waitStdin()
	case "sbx-daemon": // a daemon of its own session, then waits
		d := spawn("sbx-sleep", true)
		if err := d.Start(); err != nil {
			os.Exit(2)
		}
		say(map[string]int{"daemon": d.Process.Pid})
		waitStdin()
	case "sbx-daemon-exit": // a daemon of its own session, then exits
		d := spawn("sbx-sleep", true)
		if err := d.Start(); err != nil {
			os.Exit(2)
		}
		say(map[string]int{"daemon": d.Process.Pid})
	case "sbx-double-fork": // a middle process starts an orphan and exits
		m := spawn("sbx-mid", true)
		m.Stdout = os.Stdout
		if err := m.Run(); err != nil {
			os.Exit(2)
		}
		waitStdin()
	case "sbx-mid":
		o := spawn("sbx-orphan", false)
		o.Stdout = os.Stdout
		o.Env = append(o.Env, "SBX_PARENT="+strconv.Itoa(os.Getpid()))
		if err := o.Start(); err != nil {
			os.Exit(2)
		}
	case "sbx-orphan": // says who adopted it once its parent ended
		parent := os.Getenv("SBX_PARENT")
		for deadline := time.Now().Add(time.Minute); strconv.Itoa(os.Getppid()) == parent && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		say(map[string]int{"orphan": os.Getpid(), "ppid": os.Getppid()})
		os.Stdout.Close()
		sleepLong()
	case "sbx-sleep":
		sleepLong()
	case "sbx-write": // writes where it was told it may, then waits
		wd, _ := os.Getwd()
		for _, p := range []string{
			filepath.Join(wd, "cwd.txt"),
			filepath.Join(os.Getenv("HOME"), "home.txt"),
			filepath.Join(os.Getenv("TMPDIR"), "tmp.txt"),
			filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "app", "conf.json"),
		} {
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte("written by the sandbox test\n"), 0o644)
		}
		say(map[string]bool{"wrote": true})
		waitStdin()
	case "sbx-net": // listens on loopback and holds a file outside the sandbox open for writing
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			os.Exit(2)
		}
		defer l.Close()
		f, err := os.OpenFile(os.Getenv("SBX_OUT"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			os.Exit(2)
		}
		defer f.Close()
		say(map[string]string{"listen": l.Addr().String()})
		waitStdin()
	case "sbx-die": // cannot start: says nothing, fails
		fmt.Fprintln(os.Stderr, "sbx-die: no config in", os.Getenv("HOME"))
		os.Exit(3)
	}
}

func waitStdin() {
	b := make([]byte, 1024)
	for {
		if _, err := os.Stdin.Read(b); err != nil {
			return
		}
	}
}

// sleepLong sleeps for a while (a minute: a leak does not outlive the
// test run by much), in a way the runtime does not take for a deadlock.
func sleepLong() {
	time.Sleep(time.Minute)
}
