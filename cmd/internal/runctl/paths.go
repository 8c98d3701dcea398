package runctl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// makeDir creates dir and its missing parents. undo removes the folders it
// created if they are still empty, so that a refused run leaves nothing.
func makeDir(dir string) (undo func(), err error) {
	var created []string // deepest last
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || !errors.Is(err, fs.ErrNotExist) {
			break
		}
		created = append([]string{d}, created...)
		if d == filepath.Dir(d) {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return func() {
		for i := len(created) - 1; i >= 0; i-- {
			os.Remove(created[i]) // fails, harmlessly, on a folder that is not empty
		}
	}, nil
}

// checkWritable returns an error if no file can be created in dir; it
// creates and removes a temporary file, touching nothing else.
func checkWritable(dir string) error {
	f, err := os.CreateTemp(dir, ".dlca-write-check-*")
	if err != nil {
		return fmt.Errorf("cannot write into %s: %w; choose a directory you can write to", dir, err)
	}
	f.Close()
	return os.Remove(f.Name())
}

// checkCheckpointPath refuses, before training, a checkpoint path that
// could never be saved to: a folder, a device or other non-regular file, a
// path whose folder is missing or cannot be written.
func checkCheckpointPath(path string) error {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return fmt.Errorf("-checkpoint %s is a directory: name a file, such as %s", path, filepath.Join(path, "checkpoint.json"))
	case err == nil && !st.Mode().IsRegular():
		return fmt.Errorf("-checkpoint %s is not a regular file but %s: a checkpoint is written beside it and renamed over it, so name a file", path, kind(st.Mode()))
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("-checkpoint %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if st, err := os.Stat(dir); err != nil {
		return fmt.Errorf("-checkpoint %s: its folder %s does not exist (%v): create it or name another file", path, dir, err)
	} else if !st.IsDir() {
		return fmt.Errorf("-checkpoint %s: %s is not a directory", path, dir)
	}
	return checkWritable(dir)
}

// kind names the kind of a file that is not regular.
func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a special file"
}
