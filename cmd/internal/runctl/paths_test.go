package runctl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckCheckpointPath: a checkpoint path that no save could write is
// refused before training, saying why; a new or existing regular file in a
// writable folder is accepted.
func TestCheckCheckpointPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, path, want string
	}{
		{"new file", filepath.Join(dir, "c.json"), ""},
		{"existing file", file, ""},
		{"a directory", dir, "is a directory: name a file"},
		{"a device", os.DevNull, "is not a regular file but a device"},
		{"missing folder", filepath.Join(dir, "none", "c.json"), "its folder " + filepath.Join(dir, "none") + " does not exist"},
		{"under a file", filepath.Join(file, "c.json"), "not a directory"},
		{"unwritable folder", "/proc/self/dlca.ckpt", "cannot write into /proc/self"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkCheckpointPath(tc.path)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("checkCheckpointPath(%s): %v, want %q", tc.path, err, tc.want)
			}
		})
	}
}

// TestMakeDirUndo: undo removes exactly the folders makeDir created, and
// only while they are empty.
func TestMakeDirUndo(t *testing.T) {
	root := t.TempDir()
	for _, tc := range []struct {
		name      string
		dir       string
		fill      bool     // put a file into dir before undo
		remaining []string // relative to root, after undo
		gone      []string
	}{
		{"nested new folders", "a/b/c", false, nil, []string{"a"}},
		{"existing folder", ".", false, []string{"."}, nil},
		{"a folder something was written into", "d/e", true, []string{"d/e"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(root, tc.dir)
			undo, err := makeDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				t.Fatalf("makeDir did not make %s: %v", dir, err)
			}
			if tc.fill {
				if err := os.WriteFile(filepath.Join(dir, "model.json"), nil, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			undo()
			for _, p := range tc.remaining {
				if _, err := os.Stat(filepath.Join(root, p)); err != nil {
					t.Errorf("undo removed %s: %v", p, err)
				}
			}
			for _, p := range tc.gone {
				if _, err := os.Stat(filepath.Join(root, p)); !os.IsNotExist(err) {
					t.Errorf("undo left %s (%v)", p, err)
				}
			}
		})
	}
}
