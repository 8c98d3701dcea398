package repocheck

import (
	"bytes"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

// trackedFiles lists the files git tracks, relative to the repository root,
// and the root itself. It skips the test outside a git checkout.
func trackedFiles(t *testing.T) (root string, files []string) {
	t.Helper()
	out, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git checkout (git rev-parse: %v): nothing tracked to check", err)
	}
	root = strings.TrimSpace(string(out))
	list, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range bytes.Split(list, []byte{0}) {
		if len(name) > 0 {
			files = append(files, string(name))
		}
	}
	return root, files
}

// executableMagic is how compiled programs begin: ELF (Linux), Mach-O (both
// byte orders, 32 and 64 bit, and universal), PE (Windows: "MZ"), WebAssembly.
var executableMagic = [][]byte{
	{0x7f, 'E', 'L', 'F'},
	{0xfe, 0xed, 0xfa, 0xce}, {0xce, 0xfa, 0xed, 0xfe},
	{0xfe, 0xed, 0xfa, 0xcf}, {0xcf, 0xfa, 0xed, 0xfe},
	{0xca, 0xfe, 0xba, 0xbe},
	{'M', 'Z'},
	{0x00, 'a', 's', 'm'},
}

// isBinary reports whether content starts like a compiled program.
func isBinary(content []byte) bool {
	for _, magic := range executableMagic {
		if bytes.HasPrefix(content, magic) {
			return true
		}
	}
	return false
}

// runOutputs are the files a training run writes into its -out folder
// (docs/training.md); tracked outside testdata/ and docs/ they mean a run
// folder was committed by accident.
var runOutputs = map[string]bool{"model.json": true, "checkpoint.json": true, "run.json": true}

// isRunOutput reports whether a tracked path looks like part of a run folder
// that does not belong in the tree: a model, checkpoint, run record or
// animation anywhere but under a testdata/ folder or docs/.
func isRunOutput(name string) bool {
	if strings.HasPrefix(name, "docs/") || strings.HasPrefix(name, "testdata/") || strings.Contains(name, "/testdata/") {
		return false
	}
	base := path.Base(name)
	return runOutputs[base] || strings.HasSuffix(base, ".gif") || strings.HasSuffix(base, ".ckpt")
}

// TestNoBinariesOrRunsTracked fails when git tracks a compiled program (a
// 25 MB dlca-bench was committed once) or a run's outputs (a cbs/ folder with
// a checkpoint, a model and animations came in with a merge). Build outputs
// and run folders belong in .gitignore; fixtures in testdata/, pictures in docs/.
func TestNoBinariesOrRunsTracked(t *testing.T) {
	root, files := trackedFiles(t)
	for _, name := range files {
		if isRunOutput(name) {
			t.Errorf("%s is tracked: it looks like a training run's output; remove it (git rm --cached) or move a fixture under testdata/", name)
		}
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			continue // deleted in the work tree but still in the index: git status shows it
		}
		head := make([]byte, 4)
		n, _ := f.Read(head)
		f.Close()
		if isBinary(head[:n]) {
			t.Errorf("%s is tracked and is a compiled program; remove it (git rm --cached %s) and let .gitignore keep it out", name, name)
		}
	}
}

// TestTreeCheckCatches holds the two rules to planted examples, so a rule
// that stops matching fails here rather than letting the next binary in.
func TestTreeCheckCatches(t *testing.T) {
	binaries := map[string][]byte{
		"ELF":     {0x7f, 'E', 'L', 'F', 2, 1, 1},
		"Mach-O":  {0xcf, 0xfa, 0xed, 0xfe, 7, 0},
		"PE":      []byte("MZ\x90\x00"),
		"wasm":    {0x00, 'a', 's', 'm', 1, 0, 0, 0},
		"shebang": []byte("#!/usr/bin/env bash\n"),
		"Go":      []byte("package main\n"),
	}
	wantBinary := map[string]bool{"ELF": true, "Mach-O": true, "PE": true, "wasm": true}
	for name, content := range binaries {
		if got := isBinary(content); got != wantBinary[name] {
			t.Errorf("isBinary(%s) = %v, want %v", name, got, wantBinary[name])
		}
	}
	runs := map[string]bool{
		"cbs/checkpoint.json":                true,
		"cbs/rollout.gif":                    true,
		"model.json":                         true,
		"out/lizard/run.json":                true,
		"docs/img/lizard-rollout.gif":        false,
		"cmd/dlca/testdata/model.json":       false,
		"testdata/run.json":                  false,
		"experiments/checkerboard.toml":      false,
		"internal/jsonfile/jsonfile_test.go": false,
	}
	for name, want := range runs {
		if got := isRunOutput(name); got != want {
			t.Errorf("isRunOutput(%q) = %v, want %v", name, got, want)
		}
	}
}
