package safefile

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// writeString is a write func that writes s.
func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// TestWriteTargets writes onto every kind of path and checks what became
// of it: regular files are replaced atomically (keeping their mode), links
// stay links, devices stay devices, everything else is refused untouched.
func TestWriteTargets(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup makes the target in dir and returns the path to write.
		setup func(t *testing.T, dir string) string
		// want is the error's text, or "" for success.
		want string
		// check inspects dir after the write.
		check func(t *testing.T, dir, path string)
	}{
		{"new file", func(t *testing.T, dir string) string { return filepath.Join(dir, "f") }, "",
			func(t *testing.T, dir, path string) { wantFile(t, path, "new", 0o644) }},
		{"existing file keeps its mode", func(t *testing.T, dir string) string {
			return mkfile(t, dir, "f", "old", 0o600)
		}, "", func(t *testing.T, dir, path string) { wantFile(t, path, "new", 0o600) }},
		{"link to a file stays a link", func(t *testing.T, dir string) string {
			mkfile(t, dir, "target", "old", 0o644)
			return mklink(t, "target", filepath.Join(dir, "link"))
		}, "", func(t *testing.T, dir, path string) {
			wantLink(t, path, "target")
			wantFile(t, filepath.Join(dir, "target"), "new", 0o644)
		}},
		{"link to a link to a file", func(t *testing.T, dir string) string {
			mkfile(t, dir, "target", "old", 0o644)
			mklink(t, "target", filepath.Join(dir, "link1"))
			return mklink(t, "link1", filepath.Join(dir, "link2"))
		}, "", func(t *testing.T, dir, path string) {
			wantLink(t, path, "link1")
			wantLink(t, filepath.Join(dir, "link1"), "target")
			wantFile(t, filepath.Join(dir, "target"), "new", 0o644)
		}},
		{"dangling link", func(t *testing.T, dir string) string {
			return mklink(t, "nowhere", filepath.Join(dir, "link"))
		}, "link to a file that does not exist", func(t *testing.T, dir, path string) {
			wantLink(t, path, "nowhere")
			wantMissing(t, filepath.Join(dir, "nowhere"))
		}},
		{"directory", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "d")
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
			return p
		}, "is a directory, not a regular file", func(t *testing.T, dir, path string) {
			if info, err := os.Lstat(path); err != nil || !info.IsDir() {
				t.Errorf("the directory became %v (%v)", info, err)
			}
		}},
		{"/dev/null", func(t *testing.T, dir string) string { return "/dev/null" }, "",
			func(t *testing.T, dir, path string) { wantCharDevice(t, path) }},
		{"link to /dev/null", func(t *testing.T, dir string) string {
			return mklink(t, "/dev/null", filepath.Join(dir, "link"))
		}, "", func(t *testing.T, dir, path string) {
			wantLink(t, path, "/dev/null")
			wantCharDevice(t, "/dev/null")
		}},
		{"socket", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "sock")
			l, err := net.Listen("unix", p)
			if err != nil {
				t.Skipf("cannot make a unix socket here: %v", err)
			}
			t.Cleanup(func() { l.Close() })
			return p
		}, "is a socket, not a regular file", func(t *testing.T, dir, path string) {
			if info, err := os.Lstat(path); err != nil || info.Mode()&fs.ModeSocket == 0 {
				t.Errorf("the socket became %v (%v)", info, err)
			}
		}},
		{"block device", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "blk")
			// NOTE: making a device node needs root (CAP_MKNOD); it is made
			// in the test's own directory, not in /dev, and never opened.
			if err := syscall.Mknod(p, syscall.S_IFBLK|0o600, 7<<8); err != nil {
				t.Skipf("cannot make a block device node (needs root): %v", err)
			}
			return p
		}, "is a block device, not a regular file", func(t *testing.T, dir, path string) {
			if info, err := os.Lstat(path); err != nil || info.Mode()&fs.ModeDevice == 0 {
				t.Errorf("the device became %v (%v)", info, err)
			}
		}},
		{"a descriptor's file under /proc", func(t *testing.T, dir string) string {
			f, err := os.Create(filepath.Join(dir, "open"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { f.Close() })
			return "/proc/self/fd/" + strconv.Itoa(int(f.Fd()))
		}, "another program has open", func(t *testing.T, dir, path string) {
			wantFile(t, filepath.Join(dir, "open"), "", 0o644)
		}},
		{"missing directory", func(t *testing.T, dir string) string { return filepath.Join(dir, "no", "f") },
			"cannot write", func(t *testing.T, dir, path string) { wantMissing(t, filepath.Join(dir, "no")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := tc.setup(t, dir)
			// Check foresees the refusals that do not need a write.
			if cerr := Check(path); (cerr == nil) != (tc.want == "" || tc.name == "missing directory") {
				t.Errorf("Check: %v", cerr)
			}
			err := Write(path, writeString("new"))
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Write: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Write: error %v, want one saying %q", err, tc.want)
			}
			tc.check(t, dir, path)
			wantNoTemporaries(t, dir)
		})
	}
}

// TestWriteNamedPipe writes through a named pipe to its reader.
func TestWriteNamedPipe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("cannot make a named pipe here: %v", err)
	}
	got := make(chan string)
	go func() {
		b, _ := os.ReadFile(p)
		got <- string(b)
	}()
	if err := Write(p, writeString("through")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through" {
		t.Errorf("the reader got %q, want \"through\"", s)
	}
	if info, err := os.Lstat(p); err != nil || info.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the pipe became %v (%v)", info, err)
	}
}

// TestWriteStdout: "-" and /dev/stdout write to os.Stdout, whatever it is.
func TestWriteStdout(t *testing.T) {
	for _, path := range []string{"-", "/dev/stdout"} {
		t.Run(path, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			saved := os.Stdout
			os.Stdout = w
			err = Write(path, writeString("printed"))
			os.Stdout = saved
			w.Close()
			b, _ := io.ReadAll(r)
			if err != nil || string(b) != "printed" {
				t.Errorf("Write(%q): %v; standard output got %q", path, err, b)
			}
		})
	}
}

// A failed write leaves the previous file whole and no temporary file.
func TestFailedWriteKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := mkfile(t, dir, "model.json", "old", 0o644)
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, "half a mod")
		return errors.New("disk full")
	})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("error %v, want the write's error", err)
	}
	wantFile(t, path, "old", 0o644)
	wantNoTemporaries(t, dir)
}

// TestStaleTemporaries: after a write, temporaries of the exact pattern
// that a killed write left are removed, and nothing else, however
// temporary its name looks.
func TestStaleTemporaries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.json")
	stale := []string{".model.json.dlca-tmp-123", ".model.json.dlca-tmp-4294967295"}
	kept := []string{
		".model.json.tmp-notes", ".model.json.tmp123", ".bashrc.tmp.bak", ".model.json.dlca-tmp-",
		".model.json.dlca-tmp-12x", ".model.json.dlca-tmp-12.bak", "model.json.dlca-tmp-1",
		".other.json.dlca-tmp-1", ".model.json.dlca-tmp-1/",
	}
	for _, n := range stale {
		mkfile(t, dir, n, "half", 0o600)
	}
	for _, n := range kept {
		if strings.HasSuffix(n, "/") { // a directory of the pattern: not a file of ours
			if err := os.Mkdir(filepath.Join(dir, n), 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		mkfile(t, dir, n, "user's", 0o644)
	}
	if err := Write(path, writeString("new")); err != nil {
		t.Fatal(err)
	}
	for _, n := range stale {
		wantMissing(t, filepath.Join(dir, n))
	}
	for _, n := range kept {
		if _, err := os.Lstat(filepath.Join(dir, n)); err != nil {
			t.Errorf("%s was removed: %v", n, err)
		}
	}
}

func TestIsTemp(t *testing.T) {
	for _, tc := range []struct {
		name string
		want bool
	}{
		{".m.json.dlca-tmp-1", true},
		{".m.json.dlca-tmp-0123456789", true},
		{".m.json.dlca-tmp-", false},
		{".m.json.dlca-tmp-1a", false},
		{".m.json.tmp1", false},
		{"m.json.dlca-tmp-1", false},
		{".m.jsonx.dlca-tmp-1", false},
		{"..m.json.dlca-tmp-1", false},
	} {
		if got := IsTemp(tc.name, "m.json"); got != tc.want {
			t.Errorf("IsTemp(%q, \"m.json\") = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func mkfile(t *testing.T, dir, name, content string, mode fs.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil { // past the umask
		t.Fatal(err)
	}
	return p
}

func mklink(t *testing.T, target, link string) string {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	return link
}

func wantFile(t *testing.T, path, content string, mode fs.FileMode) {
	t.Helper()
	info, err := os.Lstat(path)
	if err != nil || !info.Mode().IsRegular() {
		t.Fatalf("%s: %v (%v), want a regular file", path, info, err)
	}
	if info.Mode().Perm() != mode {
		t.Errorf("%s has mode %v, want %v", path, info.Mode().Perm(), mode)
	}
	if b, _ := os.ReadFile(path); string(b) != content {
		t.Errorf("%s holds %q, want %q", path, b, content)
	}
}

func wantLink(t *testing.T, path, target string) {
	t.Helper()
	if got, err := os.Readlink(path); err != nil || got != target {
		t.Errorf("%s: link to %q (%v), want a link to %q", path, got, err, target)
	}
}

func wantCharDevice(t *testing.T, path string) {
	t.Helper()
	if info, err := os.Lstat(path); err != nil || info.Mode()&fs.ModeCharDevice == 0 {
		t.Errorf("%s is %v (%v), want a character device", path, info, err)
	}
}

func wantMissing(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s exists (stat error %v)", path, err)
	}
}

// wantNoTemporaries fails if a temporary file of any target is in dir.
func wantNoTemporaries(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), tempMark) {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}
