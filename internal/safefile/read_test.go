package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadLimited: a file up to the limit is read whole; a larger regular
// file is refused by its size, and an endless one (/dev/zero) after
// limit+1 bytes, each error naming the path and the limit.
func TestReadLimited(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("0123456789"), 0o644)
	if b, err := ReadLimited(small, 10); err != nil || string(b) != "0123456789" {
		t.Fatalf("a file of exactly the limit: %q, %v", b, err)
	}
	for _, tc := range []struct{ path string }{{small}, {"/dev/zero"}} {
		if _, err := os.Stat(tc.path); err != nil {
			t.Skipf("%s: %v", tc.path, err)
		}
		b, err := ReadLimited(tc.path, 9)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), "9") || b != nil {
			t.Errorf("%s over a limit of 9: %q, %v; want ErrTooLarge naming the path and the limit", tc.path, b, err)
		}
	}
	if _, err := ReadLimited(filepath.Join(dir, "missing"), 9); !os.IsNotExist(err) {
		t.Errorf("a missing file: %v, want not-exist", err)
	}
}
