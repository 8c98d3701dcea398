package safefile

import (
	"os"
	"path/filepath"
)

// Same reports whether paths a and b name the same file: the same absolute
// path once links are resolved, or, for files that exist, the same file
// by device and inode (hard links, bind mounts). Standard output is the
// same as no file.
func Same(a, b string) bool {
	if IsStdout(a) || IsStdout(b) {
		return false
	}
	if resolve(a) == resolve(b) {
		return true
	}
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}

// resolve returns path made absolute, with its links resolved where it
// exists.
func resolve(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	return abs
}
