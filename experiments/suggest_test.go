package experiments

import (
	"strings"
	"testing"
)

// TestSuggestKey: an unknown key close to a known one is answered with it
// (a letter doubled, two swapped, one missing, a table's key misspelt),
// and one far from every key gets no guess.
func TestSuggestKey(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{"lrr", "lr"},
		{"bacth", "batch"},
		{"iteration", "iterations"},
		{"target.fiel", "target.file"},
		{"checks[2].sise", "checks.size"},
		{"init.chanels", "init.channels"},
		{"colour_bits", ""},
		{"zz", ""},
	} {
		if got := suggestKey(tc.key); got != tc.want {
			t.Errorf("suggestKey(%q) = %q, want %q", tc.key, got, tc.want)
		}
	}
	// The keys come from the tags: a handful every file has.
	for _, k := range []string{"lr", "height", "target.kind", "init.palette", "checks.heal_after", "straight_through_from"} {
		if suggestKey(k) != k {
			t.Errorf("known key %q is not among the known keys %v", k, knownKeys)
		}
	}
}

// TestDidYouMean: the messages of a file and of -set say the close key.
func TestDidYouMean(t *testing.T) {
	c, err := Builtin("checkerboard-small")
	if err != nil {
		t.Fatal(err)
	}
	err = c.Set("lrr", "0.1")
	if err == nil || !strings.Contains(err.Error(), "unknown key lrr (did you mean lr?") {
		t.Fatalf("Set(lrr): error %v, want one saying did you mean lr", err)
	}
	_, err = Parse([]byte("name = 'x'\nbacth = 1\n"), "f.toml")
	if err == nil || !strings.Contains(err.Error(), "f.toml:2: unknown key bacth (did you mean batch?") {
		t.Fatalf("Parse: error %v, want one saying did you mean batch", err)
	}
}
