package runctl

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// deadPID returns the id of a process that has ended.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.Process.Pid
}

// TestLock: a folder's lock is taken when free, stale (its process gone)
// or garbage, and refused, naming the process, while a live process holds
// it; unlocking removes it.
func TestLock(t *testing.T) {
	for _, tc := range []struct {
		name   string
		before string // the lock file's content; "-" for no file
		want   string // "" if the lock must be taken
	}{
		{"free", "-", ""},
		{"held by a live process", fmt.Sprintf("%d\n", os.Getpid()), fmt.Sprintf("another training (process %d) is writing into", os.Getpid())},
		{"stale: its process is gone", fmt.Sprintf("%d\n", deadPID(t)), ""},
		{"garbage", "not a process id", ""},
		{"being written by a starting process", "", "another training is starting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, LockName)
			if tc.before != "-" {
				if err := os.WriteFile(path, []byte(tc.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			unlock, err := lock(dir)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("lock: %v, want an error saying %q", err, tc.want)
				}
				if b, _ := os.ReadFile(path); string(b) != tc.before {
					t.Fatalf("a refused lock changed the lock file to %q", b)
				}
				return
			}
			if err != nil {
				t.Fatalf("lock: %v", err)
			}
			if b, _ := os.ReadFile(path); string(b) != fmt.Sprintf("%d\n", os.Getpid()) {
				t.Fatalf("lock file holds %q, want this process's id", b)
			}
			if _, err := lock(dir); err == nil {
				t.Fatal("a second lock of the same folder was granted")
			}
			unlock()
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Fatalf("unlock left the lock file (%v)", err)
			}
		})
	}
}
