package session

import (
	"context"

	"github.com/mcpcheck/mcpcheck/internal/harness/wire"
)

type nopConn struct{}

func (nopConn) Send(context.Context, []byte) (string, error)    { return "", nil }
func (nopConn) SendRaw(context.Context, []byte) (string, error) { return "", nil }
func (nopConn) Recv(ctx context.Context) (wire.Frame, error) {
	<-ctx.Done()
	return wire.Frame{}, ctx.Err()
}
func (nopConn) Observe(wire.Tap) func()   { return func() {} }
func (nopConn) Transport() wire.Transport { return wire.TransportStdio }
func (nopConn) Close() error              { return nil }
