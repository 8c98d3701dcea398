package safefile

import "fmt"

// CheckName returns an error unless name, read from a file, is safe to use
// as one component of a path: not empty, not "." or "..", at most 100
// bytes of letters, digits, '.', '_' and '-'. what says where the name came
// from, for the error message.
func CheckName(what, name string) error {
	ok := name != "" && name != "." && name != ".." && len(name) <= 100
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("%s %q is not a plain name (1 to 100 letters, digits, '.', '_' or '-'; not . or ..)", what, name)
	}
	return nil
}
