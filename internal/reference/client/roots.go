package client

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/spec/mcp"
	"github.com/mcpcheck/mcpcheck/spec"
)

// ValidateRoot checks that r is a root a client may expose: a file:// URI
// with an absolute, clean path and nothing else (no host other than
// localhost, query or fragment).
func ValidateRoot(r mcp.Root) error {
	u, err := url.Parse(r.URI)
	if err != nil {
		return fmt.Errorf("client: root %q is not a URI: %v", r.URI, err)
	}
	if u.Scheme != "file" {
		return fmt.Errorf("client: root %q is not a file:// URI; roots must be file:// URIs", r.URI)
	}
	if u.Host != "" && u.Host != "localhost" {
		return fmt.Errorf("client: root %q names host %q; use file:///absolute/path", r.URI, u.Host)
	}
	if u.RawQuery != "" || u.Fragment != "" || u.Opaque != "" {
		return fmt.Errorf("client: root %q has a query, fragment or opaque part; use file:///absolute/path", r.URI)
	}
	p := u.Path
	if !strings.HasPrefix(p, "/") {
		return fmt.Errorf("client: root %q has no absolute path", r.URI)
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." || seg == "." {
			return fmt.Errorf("client: root %q contains %q segments; give the resolved path", r.URI, seg)
		}
	}
	if clean := path.Clean(p); clean != strings.TrimSuffix(p, "/") && clean != p {
		return fmt.Errorf("client: root %q is not a clean path (want %s)", r.URI, clean)
	}
	if strings.ContainsRune(p, 0) {
		return errors.New("client: root path contains a NUL byte")
	}
	return nil
}

// RootFromPath builds a root from an absolute file system path.
func RootFromPath(p, name string) (mcp.Root, error) {
	if !strings.HasPrefix(p, "/") {
		return mcp.Root{}, fmt.Errorf("client: root path %q is not absolute", p)
	}
	u := url.URL{Scheme: "file", Path: path.Clean(p)}
	r := mcp.Root{URI: u.String(), Name: name}
	return r, ValidateRoot(r)
}

// Roots returns the roots the client exposes.
func (c *Client) Roots() []mcp.Root {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]mcp.Root{}, c.roots...)
}

// SetRoots replaces the roots after validating each, and tells the server
// with notifications/roots/list_changed (stateful versions; 2026-07-28
// has no such notification: the server asks again).
func (c *Client) SetRoots(roots []mcp.Root) error {
	if c.opts.Roots == nil {
		return errors.New("client: the roots capability was not declared; pass Options.Roots (even empty) to Connect")
	}
	for _, r := range roots {
		if err := ValidateRoot(r); err != nil {
			return err
		}
	}
	c.mu.Lock()
	c.roots = append([]mcp.Root{}, roots...)
	c.mu.Unlock()
	if c.Stateless() {
		return nil
	}
	return c.notify(spec.MethodRootsListChanged, struct{}{})
}

func (c *Client) listRoots() (any, error) {
	if c.opts.Roots == nil {
		return nil, methodNotFound("this client did not declare the roots capability")
	}
	return mcp.ListRootsResult{Roots: c.Roots()}, nil
}
