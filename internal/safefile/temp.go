package safefile

import (
	"os"
	"path/filepath"
	"strings"
)

// tempMark is what sets this package's temporary files apart: a file is
// one only if its name is exactly "." + the target's name + tempMark +
// decimal digits (os.CreateTemp's random part), so a user's file whose name
// merely looks temporary (.model.json.tmp-notes) is never touched.
const tempMark = ".dlca-tmp-"

// tempPattern is the os.CreateTemp pattern of path's temporary files.
func tempPattern(path string) string {
	return "." + filepath.Base(path) + tempMark + "*"
}

// IsTemp reports whether name (a file name, no directory) is one of the
// temporary files that Write makes for the file target (a file name too).
func IsTemp(name, target string) bool {
	digits, ok := strings.CutPrefix(name, "."+target+tempMark)
	if !ok || digits == "" {
		return false
	}
	for _, r := range digits {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// removeStale removes the temporary files of path that an earlier write,
// killed before it could rename or remove its own, left in path's
// directory. Only regular files of the exact pattern go.
func removeStale(path string) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.Type().IsRegular() && IsTemp(e.Name(), base) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
