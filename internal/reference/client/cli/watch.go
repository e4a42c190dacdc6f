package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcpcheck/mcpcheck/internal/reference/client"
	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// printLog shows a notifications/message on stderr.
func printLog(e Env, params json.RawMessage) {
	var p mcp.LoggingMessageParams
	if json.Unmarshal(params, &p) != nil {
		return
	}
	var text string
	if json.Unmarshal(p.Data, &text) != nil {
		text = string(p.Data)
	}
	logger := ""
	if p.Logger != "" {
		logger = " " + p.Logger + ":"
	}
	fmt.Fprintf(e.Stderr, "log [%s]%s %s\n", p.Level, logger, text)
}

// watchPrinter returns the notification hook of watch: one line (or JSON
// object) per notification, log messages excepted (they go to stderr).
func watchPrinter(e Env, o *options) func(method string, params json.RawMessage) {
	var mu sync.Mutex
	return func(method string, params json.RawMessage) {
		if method == spec.MethodLoggingMessage {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if o.asJSON {
			_ = printJSON(e.Stdout, map[string]any{"method": method, "params": params})
			return
		}
		if len(params) == 0 || string(params) == "{}" {
			fmt.Fprintln(e.Stdout, method)
			return
		}
		fmt.Fprintf(e.Stdout, "%s %s\n", method, params)
	}
}

// cmdWatch waits for --for or the end of the context while watchPrinter
// shows the notifications. In 2026-07-28 it opens subscriptions/listen for
// every list change; before, notifications arrive on the connection (the
// GET stream for HTTP).
func cmdWatch(e Env, o *options, c *client.Client) error {
	ctx := e.Ctx
	if o.watchFor > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.watchFor)
		defer cancel()
	}
	if !c.Stateless() {
		fmt.Fprintf(e.Stderr, "watching notifications (interrupt to stop)\n")
		<-ctx.Done()
		return nil
	}
	all := mcp.Bool(true)
	sub, err := c.Listen(ctx, mcp.SubscriptionFilter{ToolsListChanged: all, PromptsListChanged: all, ResourcesListChanged: all})
	if err != nil {
		return err
	}
	defer sub.Close()
	fmt.Fprintf(e.Stderr, "listening for notifications (interrupt to stop)\n")
	for {
		select {
		case <-sub.Notifications(): // shown by watchPrinter
		case <-sub.Done():
			return sub.Err()
		case <-ctx.Done():
			return nil
		}
	}
}
