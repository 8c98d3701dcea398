package tomlerr

import "testing"

// TestPlain: go-toml's messages (as it words them, v2.4.3) come out in
// TOML's words; anything else passes through without the prefix.
func TestPlain(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"toml: cannot decode TOML string into struct field experiments.Config.LR of type float64", "want a number, not a string"},
		{"toml: cannot decode TOML float into struct field experiments.Config.Steps of type int", "want a whole number, not a float"},
		{"toml: cannot decode TOML integer into struct field experiments.Config.Async of type bool", "want true or false, not an integer"},
		{"toml: cannot decode TOML integer into struct field experiments.Config.LossChannels of type []int", "want an array of whole numbers ([a, b, ...]), not an integer"},
		{"toml: cannot decode TOML boolean into struct field experiments.TargetSpec.File of type string", "want a string in quotes, not a boolean"},
		{"toml: cannot decode TOML array into struct field sweep.File.Grid of type map[string]interface {}", "want a table (key = value lines, or { key = value }), not an array"},
		{"toml: cannot decode TOML integer into struct field sweep.File.Runs of type []map[string]interface {}", "want an array of tables ([a, b, ...]), not an integer"},
		{"toml: cannot decode TOML float into struct field experiments.Config.WiringSeed of type uint64", "want a whole number, 0 or more, not a float"},
		{"toml: negative integer value -1 cannot be stored in uint64", "want a whole number, 0 or more, not -1"},
		{"toml: expected newline but got U+0020 ' '", "expected newline but got U+0020 ' '"},
	} {
		if got := Plain(tc.in); got != tc.want {
			t.Errorf("Plain(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
