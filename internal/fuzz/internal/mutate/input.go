package mutate

import (
	"bytes"
	"math/rand/v2"

	"github.com/mcpcheck/mcpcheck/internal/fuzz/internal/conn"
)

// Input is one fuzz case for a stream (stdio) target: the exact bytes to
// write, split into the write calls to make.
type Input struct {
	// Mutator names the mutator that made the input ("" for hand-made ones).
	Mutator string `json:"mutator,omitempty"`
	// Seed is the seed the input was made from; the same mutator, version
	// and seed give the same input.
	Seed uint64 `json:"seed"`
	// Chunks are written in order, one write call each. A chunk boundary in
	// the middle of a line is a split write.
	Chunks [][]byte `json:"chunks"`
	// Fresh asks for a new target instance with no handshake before the
	// input (for inputs about the state before initialize).
	Fresh bool `json:"fresh,omitempty"`
	// CloseAfter closes the target's stdin after the input instead of
	// sending a liveness probe; the target may then exit.
	CloseAfter bool `json:"closeAfter,omitempty"`
	// HTTP, when set, is one hostile HTTP request (HTTP targets only); it
	// is applied after the chunks.
	HTTP *conn.HTTPRequest `json:"http,omitempty"`
	// Methods are the MCP methods the input exercises, for coverage.
	Methods []string `json:"methods,omitempty"`
	// Client, set on the inputs of client campaigns (RunClient), says
	// when the stage writes the chunks to the client and what else it does
	// to its answer; CloseAfter there means the server goes away after the
	// chunks (the process exits, the HTTP connection is cut).
	Client *ClientPlan `json:"client,omitempty"`
}

// Bytes returns the chunks concatenated: everything the input writes.
func (in Input) Bytes() []byte { return bytes.Join(in.Chunks, nil) }

// LastByte is the last byte the input writes; ok is false when it writes
// nothing.
func (in Input) LastByte() (c byte, ok bool) {
	for i := len(in.Chunks) - 1; i >= 0; i-- {
		if n := len(in.Chunks[i]); n > 0 {
			return in.Chunks[i][n-1], true
		}
	}
	return 0, false
}

// Size is the number of bytes the input writes.
func (in Input) Size() int {
	n := 0
	for _, c := range in.Chunks {
		n += len(c)
	}
	return n
}

// Clone returns a deep copy.
func (in Input) Clone() Input {
	out := in
	out.Chunks = make([][]byte, len(in.Chunks))
	for i, c := range in.Chunks {
		out.Chunks[i] = append([]byte(nil), c...)
	}
	out.Methods = append([]string(nil), in.Methods...)
	if in.HTTP != nil {
		q := *in.HTTP
		out.HTTP = &q
	}
	if in.Client != nil {
		p := *in.Client
		if p.Reply != nil {
			q := *p.Reply
			q.Header = append([][2]string(nil), q.Header...)
			q.Omit = append([]string(nil), q.Omit...)
			q.Body = append([]byte(nil), q.Body...)
			if q.SSE != nil {
				d := *q.SSE
				q.SSE = &d
			}
			p.Reply = &q
		}
		out.Client = &p
	}
	return out
}

// Line frames one message as a stdio line.
func Line(b []byte) []byte { return append(append([]byte(nil), b...), '\n') }

// newRand returns the deterministic random source of one seed; salt
// separates the streams of different users of the same seed.
func newRand(seed, salt uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, salt^0x6d63706368656b21))
}

// Mix derives the seed of one execution from a campaign seed, a worker and
// an execution number, so that every execution has its own recorded seed.
func Mix(seed uint64, worker, exec int) uint64 {
	x := seed ^ uint64(worker)*0x9e3779b97f4a7c15 ^ uint64(exec)*0xbf58476d1ce4e5b9
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
