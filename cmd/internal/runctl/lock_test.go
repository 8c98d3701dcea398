package runctl

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
		{"held by a live process, its start time recorded", owner(os.Getpid()), fmt.Sprintf("another training (process %d) is writing into", os.Getpid())},
		// A kill -9 left the lock and the id went to a new process: the
		// id is alive, its start time is not the recorded one.
		{"stale: its id taken by a newer process", fmt.Sprintf("%d 1\n", os.Getpid()), ""},
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
			start, _ := startTime(os.Getpid())
			if b, _ := os.ReadFile(path); string(b) != fmt.Sprintf("%d %d\n", os.Getpid(), start) {
				t.Fatalf("lock file holds %q, want this process's id and start time %d", b, start)
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

// TestStartTime: field 22 of /proc/PID/stat is read past a command name
// with spaces and parentheses; a child started later has a later start.
func TestStartTime(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	mine, ok := startTime(os.Getpid())
	if !ok {
		t.Fatal("no start time for this process")
	}
	// A sleep named "a) b (c" (argv[0] is the command name /proc shows).
	cmd := exec.Command("sleep", "5")
	cmd.Args[0] = "a) b (c"
	time.Sleep(20 * time.Millisecond) // a clock tick (10 ms) later than this process at least
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot run sleep: %v", err)
	}
	defer cmd.Process.Kill()
	child, ok := startTime(cmd.Process.Pid)
	if !ok || child < mine {
		t.Fatalf("child start time %d (ok %v), this process's %d: want a later one", child, ok, mine)
	}
	if _, ok := startTime(deadPID(t)); ok {
		t.Error("a start time for a process that has ended")
	}
}

// TestLockCheckpoint: the checkpoint's lock is a file beside it; a second
// lock of the same checkpoint is refused naming the file and the process.
func TestLockCheckpoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ck.json")
	unlock, err := lockCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(path), ".ck.json.dlca-lock")); err != nil {
		t.Fatalf("no lock file beside the checkpoint: %v", err)
	}
	_, err = lockCheckpoint(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), fmt.Sprint(os.Getpid())) {
		t.Fatalf("second lock: %v, want a refusal naming %s and process %d", err, path, os.Getpid())
	}
	unlock()
	if _, err := os.Stat(CheckpointLock(path)); !os.IsNotExist(err) {
		t.Fatalf("unlock left the lock file (%v)", err)
	}
}
