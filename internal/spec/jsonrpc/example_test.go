package jsonrpc_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcpcheck/mcpcheck/internal/spec/jsonrpc"
)

func ExampleDecode() {
	m := jsonrpc.Decode([]byte(`{"jsonrpc":"2.0","id":1.0,"result":{},"extra":true}`))
	fmt.Println(m.Kind, "/", m.Shape)
	for _, p := range m.Problems {
		fmt.Println(p.Severity(), p.Reason, p.Pointer)
	}
	// Output:
	// invalid / response
	// invalid id-float /id
	// note unknown-member /extra
}

func ExampleLineReader() {
	in := strings.NewReader("{\"jsonrpc\":\"2.0\",\"method\":\"a\"}\r\n\n" + strings.Repeat("x", 100) + "\n{\"jsonrpc\":\"2.0\",\"method\":\"b\"}")
	lr := jsonrpc.NewLineReader(in, 64)
	for {
		line, err := lr.ReadLine()
		if line != nil {
			m := jsonrpc.Decode(line)
			fmt.Printf("%s %q crlf=%v\n", m.Kind, m.Method, lr.Info().CR)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println("error:", err)
		}
	}
	// Output:
	// notification "a" crlf=true
	// error: jsonrpc: discarded a line of 100 bytes, over the 64-byte line limit; the reader resumes at the next line; if the peer legitimately sends messages this large, raise the limit given to NewLineReader
	// notification "b" crlf=false
	// error: jsonrpc: the stream ended without a final newline, so the last line may be truncated: unexpected EOF
}

func ExampleNewRequest() {
	b, err := jsonrpc.NewRequest(jsonrpc.IntID(1), "tools/call", map[string]any{"name": "echo"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(b))
	// Output:
	// {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}
}

func ExampleRawObject() {
	// Deliberately illegal: a duplicate id, the second one null.
	b := jsonrpc.RawObject(
		jsonrpc.RawMember{Name: "jsonrpc", Value: []byte(`"2.0"`)},
		jsonrpc.RawMember{Name: "id", Value: []byte(`1`)},
		jsonrpc.RawMember{Name: "id", Value: []byte(`null`)},
		jsonrpc.RawMember{Name: "method", Value: []byte(`"ping"`)},
	)
	fmt.Println(string(b))
	fmt.Println(jsonrpc.Decode(b).Problems[0].Reason)
	// Output:
	// {"jsonrpc":"2.0","id":1,"id":null,"method":"ping"}
	// duplicate-member
}
