package bptt_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoCommandPlumbing: the library registers no flags, installs no signal
// handlers and prints to no standard stream; the commands do that
// (cmd/internal/runctl), and bptt offers hooks (Checkpointer.Request, Report)
// and returns errors.
func TestNoCommandPlumbing(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	imports := map[string]string{"flag": "registers flags", "os/signal": "handles signals", "log": "prints"}
	uses := map[string]string{"os.Stdout": "prints", "os.Stderr": "prints", "fmt.Print": "prints"}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if why, ok := imports[path]; ok {
				t.Errorf("%s imports %s: package bptt %s", name, path, why)
			}
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for use, why := range uses {
			if strings.Contains(string(src), use) {
				t.Errorf("%s uses %s: package bptt %s", name, use, why)
			}
		}
	}
}
