package target

import (
	"fmt"
	"strings"
)

// SplitCommand splits a command line the way a POSIX shell splits words,
// without expansions: white space separates words, single quotes keep
// everything literally, double quotes keep everything but backslash escapes,
// and a backslash outside single quotes escapes the next character. It is
// how "--stdio 'CMD ARGS'" becomes an argv for Command.
func SplitCommand(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord, escaped := false, false
	var quote rune
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case r == '\\' && quote != '\'':
			escaped, inWord = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, fmt.Errorf("the command %q has an unterminated quote or a trailing backslash; close it", s)
	}
	if inWord {
		out = append(out, cur.String())
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the command is empty; give the program that runs the server, e.g. \"node server.js\"")
	}
	return out, nil
}
