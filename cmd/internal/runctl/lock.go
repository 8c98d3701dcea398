package runctl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// LockName is the lock file a training run holds in its output folder.
const LockName = ".dlca-train.lock"

// CheckpointLock is the lock file that guards the checkpoint file at path:
// .NAME.dlca-lock beside it. One training at a time may write a checkpoint,
// whatever folder it trains into.
func CheckpointLock(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".dlca-lock")
}

// lock takes dir's lock file so that a second training into dir is
// refused while this one runs; see lockFile.
func lock(dir string) (unlock func(), err error) {
	return lockFile(filepath.Join(dir, LockName), func(pid int) string {
		return fmt.Sprintf("another training (process %d) is writing into %s: wait for it to end or stop it (kill -INT %d), or choose another -out", pid, dir, pid)
	}, "choose another -out")
}

// lockCheckpoint takes the lock of the checkpoint file at path
// (CheckpointLock), so that two trainings never write one checkpoint.
func lockCheckpoint(path string) (unlock func(), err error) {
	return lockFile(CheckpointLock(path), func(pid int) string {
		return fmt.Sprintf("another training (process %d) writes the checkpoint %s: wait for it to end or stop it (kill -INT %d), or give this run its own -checkpoint", pid, path, pid)
	}, "give this run its own -checkpoint")
}

// lockFile creates the lock file path holding this process's id and
// start time ("PID START\n", see owner), refusing with held(pid)'s message
// while the process that wrote it runs. A lock left by a process that no
// longer exists (a kill -9, a crash), or whose id a new process has taken
// since (its start time differs), is stale and taken over. instead says
// what to do when the file cannot be taken. unlock removes the file.
func lockFile(path string, held func(pid int) string, instead string) (unlock func(), err error) {
	me := owner(os.Getpid())
	for range 2 { // a stale lock is removed once, then taken
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, werr := f.WriteString(me)
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				os.Remove(path)
				return nil, fmt.Errorf("cannot write the lock file %s: %w", path, werr)
			}
			return func() { os.Remove(path) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("cannot create the lock file %s: %w", path, err)
		}
		b, rerr := os.ReadFile(path)
		if rerr != nil {
			return nil, fmt.Errorf("cannot read the lock file %s: %w", path, rerr)
		}
		if len(b) == 0 {
			// Another process has created the file but not yet written
			// its id: it is starting now.
			return nil, fmt.Errorf("another training is starting (lock file %s): %s, or remove the lock file if no training runs", path, instead)
		}
		if pid, ok := holder(string(b)); ok {
			return nil, errors.New(held(pid))
		}
		// Stale: its process is gone (or the file is garbage).
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("cannot remove the stale lock file %s: %w", path, err)
		}
	}
	return nil, fmt.Errorf("cannot take the lock file %s: another training keeps taking it; %s", path, instead)
}

// Holder returns the process that trains into folder dir now, by its lock
// file (LockName): running is false when none does (no lock, or a stale
// one).
func Holder(dir string) (pid int, running bool) {
	b, err := os.ReadFile(filepath.Join(dir, LockName))
	if err != nil {
		return 0, false
	}
	return holder(string(b))
}

// owner is what a lock file of process pid holds: its id and, where the
// system tells it, its start time (startTime), so that a lock is not taken
// for live when its process is gone and a new one has its id.
func owner(pid int) string {
	if start, ok := startTime(pid); ok {
		return fmt.Sprintf("%d %d\n", pid, start)
	}
	return fmt.Sprintf("%d\n", pid)
}

// holder returns the process that holds a lock file of content text, and
// whether it still runs: its id names a live process and, when the file
// records a start time, that process started then. A file from before
// start times (the id alone) counts by the id.
func holder(text string) (pid int, ok bool) {
	fields := strings.Fields(text)
	if len(fields) == 0 || len(fields) > 2 {
		return 0, false
	}
	pid, err := strconv.Atoi(fields[0])
	if err != nil || pid <= 0 || !alive(pid) {
		return 0, false
	}
	if len(fields) == 2 {
		want, err := strconv.ParseUint(fields[1], 10, 64)
		if err != nil {
			return 0, false
		}
		if got, known := startTime(pid); known && got != want {
			return 0, false // the id is another process's now
		}
	}
	return pid, true
}

// startTime returns the start time of process pid, in clock ticks after
// boot: field 22 of /proc/PID/stat (proc(5)). ok is false where there is
// no /proc.
func startTime(pid int) (uint64, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces:
	// the fields after it start after the last ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(string(b[i+1:]))
	const after = 22 - 3 // field 3 (the state) is fields[0]
	if len(fields) <= after {
		return 0, false
	}
	start, err := strconv.ParseUint(fields[after], 10, 64)
	return start, err == nil
}
