package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"
)

// Loopback lets a person authorize in their browser: it shows the
// authorization URL (it never opens or fetches it) and receives the
// redirect on a listener at the redirect URI, which must be an http URL on
// 127.0.0.1 or localhost with an explicit port.
type Loopback struct {
	// Show presents the URL to the person (print it, open a browser).
	Show func(authURL string)
	// Wait bounds how long the person has; 0 means five minutes.
	Wait time.Duration
}

// Authorize implements UserAgent.
func (l Loopback) Authorize(ctx context.Context, authURL, redirectURI string) (*url.URL, error) {
	ru, err := url.Parse(redirectURI)
	if err != nil || ru.Scheme != "http" || ru.Port() == "" || (ru.Hostname() != "127.0.0.1" && ru.Hostname() != "localhost") {
		return nil, fmt.Errorf("the redirect URI %q must be http://127.0.0.1:PORT/... to receive the browser's redirect", redirectURI)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", ru.Port()))
	if err != nil {
		return nil, fmt.Errorf("listening for the redirect on %s: %w", ru.Host, err)
	}
	got := make(chan *url.URL, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != ru.Path {
			http.NotFound(w, r)
			return
		}
		u := *ru
		u.RawQuery = r.URL.RawQuery
		select {
		case got <- &u:
		default:
		}
		_, _ = io.WriteString(w, "Authorization received; you can close this window.\n")
	})}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	if l.Show != nil {
		l.Show(authURL)
	}
	wait := l.Wait
	if wait <= 0 {
		wait = 5 * time.Minute
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case u := <-got:
		return u, nil
	case <-t.C:
		return nil, errors.New("no authorization redirect arrived in time")
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
