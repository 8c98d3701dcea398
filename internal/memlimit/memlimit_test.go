package memlimit

import (
	"errors"
	"runtime/debug"
	"strings"
	"testing"
)

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{{"1000", 1000}, {"2GiB", 2 << 30}, {"1500MB", 1500e6}, {"1.5G", 3 << 29}, {" 64 KiB ", 64 << 10}, {"3B", 3}} {
		if got, err := ParseBytes(tc.in); err != nil || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "-1G", "0", "lots", "1e30TB", "NaN", "GiB"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) accepted it", bad)
		}
	}
}

func TestAvailableMemory(t *testing.T) {
	if avail, err := AvailableMemory(); err != nil || avail <= 0 {
		t.Fatalf("available memory %d, %v", avail, err)
	}
}

// TestCheck: Check hands refuse the -max-memory given, and its error out;
// a bad -max-memory is refused naming the flag without calling refuse; and
// the garbage collector is left at GCPercent, which the estimates count on.
func TestCheck(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	tooMuch := errors.New("too much")
	var gotLimit int64
	var gotSource string
	err := Check("3MiB", func(limit int64, source string) error {
		gotLimit, gotSource = limit, source
		return tooMuch
	})
	if err != tooMuch || gotLimit != 3<<20 || gotSource != "-max-memory" {
		t.Errorf("Check(3MiB): refuse saw %d from %q and Check returned %v; want 3145728 from -max-memory and refuse's error", gotLimit, gotSource, err)
	}
	if gc := debug.SetGCPercent(100); gc != GCPercent {
		t.Errorf("the garbage collector after Check: GOGC %d, want %d", gc, GCPercent)
	}
	called := false
	err = Check("lots", func(int64, string) error { called = true; return nil })
	if err == nil || !strings.Contains(err.Error(), "-max-memory") || called {
		t.Errorf("Check(lots): %v (refuse called: %v); want -max-memory's error and no call", err, called)
	}
	if err := Check("", func(limit int64, source string) error {
		if limit <= 0 || source == "" {
			t.Errorf("the process's limit: %d from %q", limit, source)
		}
		return nil
	}); err != nil {
		t.Errorf("Check with the process's limit: %v", err)
	}
}
