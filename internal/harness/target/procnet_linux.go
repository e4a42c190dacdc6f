package target

import (
	"encoding/binary"
	"net/netip"
	"strconv"
	"strings"
)

// sockEntry is one socket of a /proc/PID/net table.
type sockEntry struct {
	proto     string // tcp, tcp6, udp, udp6, unix
	local     string
	remote    string // "" for a unix socket, or an unconnected one
	listening bool
	loopback  bool
	dns       bool
	// settled: the entry will not change in a way the report cares about
	// (a TCP socket not yet connected nor listening is read again).
	settled bool
}

// netProtos are the tables read, in order.
var netProtos = []string{"tcp", "tcp6", "udp", "udp6", "unix"}

// maxNetTable bounds one table read from /proc.
const maxNetTable = 4 << 20

// readNetTables reads the socket tables of pid's network namespace and
// returns the entries of the wanted inodes.
func readNetTables(pid int, want map[uint64]bool) map[uint64]sockEntry {
	out := map[uint64]sockEntry{}
	for _, proto := range netProtos {
		b, err := readSmall(procPath(pid, "net/"+proto), maxNetTable)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n")[1:] {
			ino, e, ok := parseNetLine(proto, l)
			if ok && want[ino] {
				out[ino] = e
			}
		}
		if len(out) == len(want) {
			break
		}
	}
	return out
}

// TCP states of /proc/net/tcp (include/net/tcp_states.h).
const (
	tcpEstablished = 0x01
	tcpSynSent     = 0x02
	tcpClose       = 0x07
	tcpListen      = 0x0A
)

// parseNetLine reads one line of a tcp, tcp6, udp, udp6 or unix table.
func parseNetLine(proto, l string) (uint64, sockEntry, bool) {
	f := strings.Fields(l)
	e := sockEntry{proto: proto}
	if proto == "unix" {
		// Num RefCount Protocol Flags Type St Inode [Path]
		if len(f) < 7 {
			return 0, e, false
		}
		ino, err := strconv.ParseUint(f[6], 10, 64)
		if err != nil {
			return 0, e, false
		}
		flags, _ := strconv.ParseUint(f[3], 16, 64)
		if len(f) > 7 {
			e.local = f[7]
		}
		e.listening = flags&0x10000 != 0 // __SO_ACCEPTCON
		e.loopback, e.settled = true, true
		return ino, e, true
	}
	// sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
	if len(f) < 10 {
		return 0, e, false
	}
	ino, err := strconv.ParseUint(f[9], 10, 64)
	if err != nil || ino == 0 {
		return 0, e, false
	}
	local, lok := parseNetAddr(f[1])
	remote, rok := parseNetAddr(f[2])
	st, err := strconv.ParseUint(f[3], 16, 8)
	if !lok || !rok || err != nil {
		return 0, e, false
	}
	e.local = local.String()
	connected := remote.Port() != 0 || !remote.Addr().IsUnspecified()
	switch {
	case strings.HasPrefix(proto, "tcp") && st == tcpListen:
		e.listening, e.settled = true, true
		e.loopback = local.Addr().Unmap().IsLoopback()
	case connected:
		e.remote = remote.String()
		e.loopback = remote.Addr().Unmap().IsLoopback()
		e.dns = remote.Port() == 53
		e.settled = true
	case strings.HasPrefix(proto, "udp") && local.Port() != 0:
		// Bound and not connected: it takes datagrams from anyone.
		e.listening, e.settled = true, true
		e.loopback = local.Addr().Unmap().IsLoopback()
	default:
		// A socket not yet bound, connected or listening: read it again.
	}
	return ino, e, true
}

// parseNetAddr reads "0100007F:0CEA" (IPv4) or 32 hex digits and a port
// (IPv6): the kernel prints the address as 32-bit words read in host
// byte order, the port as a number.
func parseNetAddr(s string) (netip.AddrPort, bool) {
	h, p, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, false
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return netip.AddrPort{}, false
	}
	if len(h) != 8 && len(h) != 32 {
		return netip.AddrPort{}, false
	}
	raw := make([]byte, len(h)/2)
	for i := 0; i < len(h); i += 8 {
		w, err := strconv.ParseUint(h[i:i+8], 16, 32)
		if err != nil {
			return netip.AddrPort{}, false
		}
		binary.NativeEndian.PutUint32(raw[i/2:], uint32(w))
	}
	a, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(a, uint16(port)), true
}

// socketInode reads "socket:[12345]".
func socketInode(link string) (uint64, bool) {
	v, ok := strings.CutPrefix(link, "socket:[")
	if !ok || !strings.HasSuffix(v, "]") {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSuffix(v, "]"), 10, 64)
	return n, err == nil
}
