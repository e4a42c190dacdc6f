package rules

// SwapCase returns s with the case of every ASCII letter swapped and every
// other byte kept: the probe both suites use for rules about case, a name
// that must be matched exactly (a tool's) and one that must not (an HTTP
// header's). s == SwapCase(s) means s has no ASCII letter to swap.
func SwapCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = c - 'a' + 'A'
		case c >= 'A' && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}
