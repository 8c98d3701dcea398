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

// lock takes dir's lock file, which holds this process's id, so that a
// second training into dir is refused while this one runs. A lock left by
// a process that no longer exists (a kill -9, a crash) is stale and taken
// over. unlock removes the file.
func lock(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, LockName)
	pid := os.Getpid()
	for range 2 { // a stale lock is removed once, then taken
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, werr := fmt.Fprintf(f, "%d\n", pid)
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
		other, perr := strconv.Atoi(strings.TrimSpace(string(b)))
		if perr == nil && other > 0 && alive(other) {
			return nil, fmt.Errorf("another training (process %d) is writing into %s: wait for it to end or stop it (kill -INT %d), or choose another -out", other, dir, other)
		}
		if perr != nil && len(b) == 0 {
			// Another process has created the file but not yet written
			// its id: it is starting now.
			return nil, fmt.Errorf("another training is starting in %s (lock file %s): choose another -out, or remove the lock file if no training runs there", dir, path)
		}
		// Stale: its process is gone (or the file is garbage).
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("cannot remove the stale lock file %s: %w", path, err)
		}
	}
	return nil, fmt.Errorf("cannot take the lock file %s: another training keeps taking it; choose another -out", path)
}
