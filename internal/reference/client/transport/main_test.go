package transport

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
)

// TestMain lets the test binary play a stdio server when
// MCPCHECK_FAKE_SERVER names a behaviour.
func TestMain(m *testing.M) {
	if mode := os.Getenv("MCPCHECK_FAKE_SERVER"); mode != "" {
		fakeStdioServer(mode)
		os.Exit(0)
	}
	os.Exit(checkLeaks(m.Run()))
}

func fakeStdioServer(mode string) {
	switch mode {
	case "echo":
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			fmt.Println(sc.Text())
		}
	case "longline":
		fmt.Println(strings.Repeat("x", 5000))
		fmt.Println(`{"jsonrpc":"2.0","method":"after"}`)
		os.Stdin.Close()
		select {}
	case "ignore-stdin":
		// Exit on SIGTERM only.
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGTERM)
		fmt.Println("ready")
		<-c
	case "ignore-all":
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		select {}
	case "spawn":
		// A grandchild in the same process group, then deaf to SIGTERM.
		signal.Ignore(syscall.SIGTERM)
		child := exec.Command("sleep", "1000")
		if err := child.Start(); err != nil {
			fmt.Println("error", err)
			return
		}
		fmt.Println(child.Process.Pid)
		select {}
	case "no-read":
		fmt.Println("ready")
		select {}
	case "env":
		fmt.Printf("%q\n", os.Getenv("FAKE_VAR"))
		wd, _ := os.Getwd()
		fmt.Printf("%q\n", wd)
		os.Stdout.Sync()
		bufio.NewReader(os.Stdin).ReadString('\n')
	}
}
