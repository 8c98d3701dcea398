package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Stdout is the path that names standard output.
const Stdout = "-"

// stdoutNames are the paths that write to standard output as "-" does.
// NOTE: /dev/stdout is a link to the shell's open file; when that is a
// regular file (dlca export -o /dev/stdout > rule.v) renaming a new file
// over it would leave the shell's descriptor on the old one.
var stdoutNames = []string{Stdout, "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"}

// IsStdout reports whether path names standard output.
func IsStdout(path string) bool {
	for _, n := range stdoutNames {
		if path == n {
			return true
		}
	}
	return false
}

// Write writes the bytes write produces to path, as the package doc says:
// atomically for a regular file or a new path (mode 0644, or the mode of
// the file it replaces), straight through for standard output, a character
// device or a named pipe, never over a directory, socket or other special
// file. When write returns an error, a regular file keeps its old content
// and no temporary file is left. After a successful atomic write, the
// temporaries that earlier killed writes of path left behind are removed.
func Write(path string, write func(io.Writer) error) error {
	t, err := targetOf(path)
	switch {
	case err != nil:
		return err
	case t.stdout:
		if err := write(os.Stdout); err != nil {
			return fmt.Errorf("writing to standard output: %w", err)
		}
		return nil
	case t.through:
		return writeThrough(path, write)
	}
	return writeAtomic(t.path, t.mode, write)
}

// Check returns the error Write would return for path before writing
// anything (a directory, a socket, a link to nothing), so that a command
// can refuse its output before it does its work. Errors that only writing
// reveals (a missing directory, a full disk) are not found.
func Check(path string) error {
	_, err := targetOf(path)
	return err
}

// target is how Write writes to a path.
type target struct {
	stdout  bool        // to os.Stdout
	through bool        // opened and written in place (a device or pipe)
	path    string      // otherwise, atomically to this regular file
	mode    fs.FileMode // with these permissions
}

// targetOf decides how to write to path, or why not to.
func targetOf(path string) (target, error) {
	if IsStdout(path) {
		return target{stdout: true}, nil
	}
	info, err := os.Stat(path) // follows links
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(path); lerr == nil {
			return target{}, fmt.Errorf("cannot write %s: it is a link to a file that does not exist; remove the link or create its target", path)
		}
		return target{path: path, mode: 0o644}, nil
	case err != nil:
		return target{}, fmt.Errorf("cannot write %s: %w", path, err)
	case info.Mode().IsRegular():
		real, err := filepath.EvalSymlinks(path)
		if err != nil {
			return target{}, fmt.Errorf("cannot write %s: %w", path, err)
		}
		if isSpecialTree(path) || isSpecialTree(real) {
			return target{}, fmt.Errorf("cannot write %s: it stands for a file another program has open (%s); name the file itself", path, real)
		}
		return target{path: real, mode: info.Mode().Perm()}, nil
	case info.Mode()&(fs.ModeCharDevice|fs.ModeNamedPipe) != 0:
		return target{through: true}, nil
	}
	return target{}, fmt.Errorf("cannot write %s: it is %s, not a regular file; name a file to write", path, describe(info.Mode()))
}

// isSpecialTree reports whether path lies in /dev or /proc, where a regular
// file is reached through a process's open descriptor (/dev/stderr, /dev/fd/3):
// renaming a new file over the file it stands for would leave the
// descriptor on the old one.
func isSpecialTree(path string) bool {
	abs, err := filepath.Abs(path)
	return err == nil && (strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/"))
}

// describe names a file type for an error message.
func describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0 && m&fs.ModeCharDevice == 0:
		return "a block device"
	default:
		return "a special file (" + m.Type().String() + ")"
	}
}

// writeThrough writes to a character device or named pipe in place.
func writeThrough(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}

// writeAtomic creates or replaces the regular file path with the given
// mode: temporary file, fsync, rename, fsync of the directory.
func writeAtomic(path string, mode fs.FileMode, write func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, tempPattern(path))
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = write(tmp); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	// NOTE: CreateTemp makes the file 0600; a model, checkpoint or picture
	// is not secret, and other tools must be able to read it.
	if err = tmp.Chmod(mode); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if d, derr := os.Open(dir); derr == nil { // make the rename itself durable
		d.Sync()
		d.Close()
	}
	removeStale(path)
	return nil
}
