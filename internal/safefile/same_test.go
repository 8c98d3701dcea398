package safefile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSame(t *testing.T) {
	dir := t.TempDir()
	a := mkfile(t, dir, "a", "x", 0o644)
	mkfile(t, dir, "b", "x", 0o644)
	mklink(t, "a", filepath.Join(dir, "link"))
	if err := os.Link(a, filepath.Join(dir, "hard")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"a", "a", true},
		{"a", "./a", true},
		{"a", filepath.Join(dir, "a"), true},
		{"a", "link", true},
		{"a", "hard", true},
		{"a", "b", false},
		{"new", "new", true},
		{"new", "./new", true},
		{"new", "a", false},
		{"-", "-", false},
		{"a", "-", false},
	} {
		if got := Same(tc.a, tc.b); got != tc.want {
			t.Errorf("Same(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"checkerboard", true},
		{"colour-g", true},
		{"lizard_2.v1", true},
		{"", false},
		{".", false},
		{"..", false},
		{"../../x", false},
		{"a/b", false},
		{`a\b`, false},
		{"/etc", false},
		{"a b", false},
		{"a\x00b", false},
		{string(make([]byte, 101)), false},
	} {
		if err := CheckName("experiment", tc.name); (err == nil) != tc.ok {
			t.Errorf("CheckName(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}
