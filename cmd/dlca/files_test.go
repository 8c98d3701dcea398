package main

import (
	"bytes"
	"context"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
)

// smallModel saves a checkerboard-small model with random gates in dir and
// returns its path.
func smallModel(t *testing.T, dir string) string {
	t.Helper()
	_, m := randomModel(t, "checkerboard-small")
	path := filepath.Join(dir, "model.json")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// fakeRun writes a run directory holding run.json (content) and loss.png,
// and returns it.
func fakeRun(t *testing.T, dir, name, content string) string {
	t.Helper()
	run := filepath.Join(dir, name)
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, run, "run.json", []byte(content))
	writeFile(t, run, "loss.png", []byte("png"))
	return run
}

const goodRun = `{"experiment": "checkerboard-small", "seed": 1, "wiring_seed": 2, "iterations": 3}`

// TestOutputOntoSpecialFiles: outputs named by a link stay links, devices
// stay devices, and a directory is refused, for every command that writes;
// a refusal comes before the work (nothing printed).
func TestOutputOntoSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	model := smallModel(t, dir)
	target := writeFile(t, dir, "rule.v", []byte("old"))
	link := filepath.Join(dir, "rule-link.v")
	nullLink := filepath.Join(dir, "null.gif")
	sub := filepath.Join(dir, "sub")
	for _, err := range []error{os.Symlink("rule.v", link), os.Symlink("/dev/null", nullLink), os.Mkdir(sub, 0o755)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		args []string
		want string // in stderr when the command must fail
	}{
		{"export to /dev/null", []string{"export", "-model", model, "-o", "/dev/null"}, ""},
		{"export through a link", []string{"export", "-model", model, "-o", link}, ""},
		{"export onto a directory", []string{"export", "-model", model, "-o", sub}, "is a directory, not a regular file"},
		{"eval gif through a link to /dev/null", []string{"eval", "-experiment", "checkerboard-small", "-model", model, "-size", "8", "-steps", "2", "-gif", nullLink}, ""},
		{"eval gif onto a directory", []string{"eval", "-experiment", "checkerboard-small", "-model", model, "-size", "8", "-steps", "2", "-gif", sub}, "is a directory, not a regular file"},
		{"results onto a directory", []string{"results", "-force", "-out", sub, fakeRun(t, dir, "run", goodRun)}, "is a directory, not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCmd(tc.args...)
			if tc.want == "" && code != 0 || tc.want != "" && (code != 1 || !strings.Contains(errs, tc.want)) {
				t.Fatalf("exit %d, stderr %q; want failure %q", code, errs, tc.want)
			}
			if tc.want != "" && out != "" {
				t.Errorf("refused after doing the work, which printed %q", head(out))
			}
			if info, err := os.Stat("/dev/null"); err != nil || info.Mode()&fs.ModeCharDevice == 0 {
				t.Fatalf("/dev/null is now %v (%v)", info, err)
			}
			for path, to := range map[string]string{link: "rule.v", nullLink: "/dev/null"} {
				if got, err := os.Readlink(path); err != nil || got != to {
					t.Fatalf("link %s now points to %q (%v)", path, got, err)
				}
			}
			if info, err := os.Lstat(sub); err != nil || !info.IsDir() {
				t.Fatalf("the directory is now %v (%v)", info, err)
			}
		})
	}
	if b, _ := os.ReadFile(target); !bytes.Contains(b, []byte("module rule")) {
		t.Errorf("the link's target holds %q, want the Verilog written through the link", b)
	}
}

// TestOutputToStdout: "-" and /dev/stdout print the output, and the
// command's report goes to stderr so the two do not mix.
func TestOutputToStdout(t *testing.T) {
	dir := t.TempDir()
	model := smallModel(t, dir)
	for _, tc := range []struct {
		name   string
		args   []string
		stdout string // what standard output starts with
		stderr string
	}{
		{"export -o -", []string{"export", "-model", model, "-o", "-"}, "// rule", "wrote - ("},
		{"export -o /dev/stdout", []string{"export", "-model", model, "-o", "/dev/stdout"}, "// rule", "wrote /dev/stdout"},
		{"export -format c -o -", []string{"export", "-model", model, "-format", "c", "-o", "-"}, "/* rule", "no C header written"},
		{"eval -gif -", []string{"eval", "-experiment", "checkerboard-small", "-model", model, "-size", "8", "-steps", "2", "-gif", "-"}, "GIF89a", "cells differ"},
		{"eval -states -", []string{"eval", "-experiment", "checkerboard-small", "-model", model, "-size", "8", "-steps", "2", "-states", "-"}, "\x93NUMPY", "wrote - (3 states"},
		{"results -out -", []string{"results", "-out", "-", fakeRun(t, dir, "run", goodRun)}, "# Results", "wrote - (1 runs)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := asCommand(tc.args...)
			var out, errs bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errs
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v: %s", err, errs.String())
			}
			if !strings.HasPrefix(out.String(), tc.stdout) || !strings.Contains(errs.String(), tc.stderr) {
				t.Fatalf("stdout starts %q, stderr %q; want stdout starting %q, stderr with %q", head(out.String()), errs.String(), tc.stdout, tc.stderr)
			}
			if _, err := os.Lstat("-"); err == nil {
				t.Fatal("a file named - was written")
			}
		})
	}
}

// head is the start of s, for a message.
func head(s string) string {
	return s[:min(len(s), 40)]
}

// TestOutputIsInput: a command asked to write over its own input (by the
// same path, another spelling, a link or a hard link) refuses and leaves
// every file as it was.
func TestOutputIsInput(t *testing.T) {
	dir := t.TempDir()
	model := smallModel(t, dir)
	link, hard := filepath.Join(dir, "link.json"), filepath.Join(dir, "hard.json")
	for _, err := range []error{os.Symlink("model.json", link), os.Link(model, hard)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	gifs := filepath.Join(dir, "gifs")
	if err := os.Mkdir(gifs, 0o755); err != nil {
		t.Fatal(err)
	}
	// A model file that happens to have the name of a check's animation.
	gifModel := filepath.Join(gifs, "generalise.gif")
	if err := os.Link(model, gifModel); err != nil {
		t.Fatal(err)
	}
	run := fakeRun(t, dir, "run", goodRun)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"export -o the model", []string{"export", "-model", model, "-o", model}},
		{"export -o another spelling", []string{"export", "-model", model, "-o", filepath.Join(dir, ".", "gifs", "..", "model.json")}},
		{"export -o a link to the model", []string{"export", "-model", model, "-o", link}},
		{"export -model a link", []string{"export", "-model", link, "-o", model}},
		{"export -o a hard link", []string{"export", "-model", model, "-o", hard}},
		{"eval -gif the model", []string{"eval", "-experiment", "checkerboard-small", "-model", model, "-gif", model}},
		{"check -gifs holding the model", []string{"check", "-experiment", "checkerboard-small", "-model", gifModel, "-gifs", gifs}},
		{"results -out a run.json", []string{"results", "-force", "-out", filepath.Join(run, "run.json"), run}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, dir)
			code, _, errs := runCmd(tc.args...)
			if code != 1 || !strings.Contains(errs, "would destroy the input") {
				t.Fatalf("exit %d, stderr %q; want a refusal", code, errs)
			}
			if after := snapshot(t, dir); !reflect.DeepEqual(after, before) {
				t.Fatal("a file changed")
			}
		})
	}
}

// TestResultsOutputs: dlca results writes nowhere by default, replaces an
// existing page or picture only with -force, refuses names from run.json
// that are not plain names and damaged run.json files, and a refusal leaves
// no file or folder behind.
func TestResultsOutputs(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup prepares dir (the working directory) and returns the
		// arguments after "results".
		setup func(t *testing.T, dir string) []string
		want  string // in stderr; "" for success
		check func(t *testing.T, dir string)
	}{
		{"no -out", func(t *testing.T, dir string) []string {
			return []string{fakeRun(t, dir, "run", goodRun)}
		}, "-out is required", nil},
		{"existing page", func(t *testing.T, dir string) []string {
			writeFile(t, dir, "RESULTS.md", []byte("my notes"))
			return []string{"-out", "RESULTS.md", "-img", "img", fakeRun(t, dir, "run", goodRun)}
		}, "RESULTS.md exists; pass -force to replace it", nil},
		{"existing page, -force", func(t *testing.T, dir string) []string {
			writeFile(t, dir, "RESULTS.md", []byte("my notes"))
			return []string{"-force", "-out", "RESULTS.md", fakeRun(t, dir, "run", goodRun)}
		}, "", func(t *testing.T, dir string) {
			if b, _ := os.ReadFile(filepath.Join(dir, "RESULTS.md")); !bytes.HasPrefix(b, []byte("# Results")) {
				t.Errorf("the page holds %q", head(string(b)))
			}
		}},
		{"existing picture", func(t *testing.T, dir string) []string {
			if err := os.Mkdir(filepath.Join(dir, "img"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, dir, "img/checkerboard-small-seed1-wiring2-loss.png", []byte("mine"))
			return []string{"-out", "new.md", "-img", "img", fakeRun(t, dir, "run", goodRun)}
		}, "checkerboard-small-seed1-wiring2-loss.png exists; pass -force", nil},
		{"new page and pictures", func(t *testing.T, dir string) []string {
			return []string{"-out", "docs/R.md", "-img", "docs/img", fakeRun(t, dir, "run", goodRun)}
		}, "", func(t *testing.T, dir string) {
			b, err := os.ReadFile(filepath.Join(dir, "docs/img/checkerboard-small-seed1-wiring2-loss.png"))
			if err != nil || string(b) != "png" {
				t.Errorf("picture: %q, %v", b, err)
			}
		}},
		{"experiment name with ..", func(t *testing.T, dir string) []string {
			return []string{"-out", "R.md", "-img", "a/b", fakeRun(t, dir, "run", `{"experiment": "../../x"}`)}
		}, `run.json names experiment "../../x" is not a plain name`, nil},
		{"experiment name with a slash", func(t *testing.T, dir string) []string {
			return []string{"-out", "R.md", "-img", "img", fakeRun(t, dir, "run", `{"experiment": "a/b"}`)}
		}, "is not a plain name", nil},
		{"run.json with a byte-order mark", func(t *testing.T, dir string) []string {
			return []string{"-out", "R.md", fakeRun(t, dir, "run", "\xEF\xBB\xBF"+goodRun)}
		}, "starts with a UTF-8 byte-order mark; save the file without it", nil},
		{"run.json with trailing data", func(t *testing.T, dir string) []string {
			return []string{"-out", "R.md", fakeRun(t, dir, "run", goodRun+"}")}
		}, "data after its JSON value", nil},
		{"a damaged run after a good one", func(t *testing.T, dir string) []string {
			return []string{"-out", "R.md", "-img", "img", fakeRun(t, dir, "a", goodRun), fakeRun(t, dir, "b", goodRun[:20])}
		}, "truncated", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			args := tc.setup(t, dir)
			before := snapshot(t, dir)
			code, _, errs := runCmd(append([]string{"results"}, args...)...)
			if tc.want == "" {
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errs)
				}
				tc.check(t, dir)
				return
			}
			if code == 0 || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, stderr %q; want an error saying %q", code, errs, tc.want)
			}
			if after := snapshot(t, dir); !reflect.DeepEqual(after, before) {
				t.Errorf("a refusal changed the files: %v", keys(after))
			}
		})
	}
}

// keys lists a snapshot's paths, for a message.
func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestStrayArguments: every command but results (whose arguments are run
// directories) takes flags only.
func TestStrayArguments(t *testing.T) {
	for _, c := range commands {
		if c.name == "results" || c.name == "import" { // they take files as arguments
			continue
		}
		code, _, errs := runCmd(c.name, "extra")
		if code == 0 || !strings.Contains(errs, `unexpected argument "extra"`) {
			t.Errorf("dlca %s extra: exit %d, stderr %q", c.name, code, errs)
		}
	}
}

// TestInterrupted: with its context cancelled (as Ctrl-C does), every
// command that writes stops with an error saying so, and leaves no output,
// temporary file or folder.
func TestInterrupted(t *testing.T) {
	dir := t.TempDir()
	model := smallModel(t, dir)
	rundir := fakeRun(t, dir, "run", goodRun)
	out := func(name string) string { return filepath.Join(dir, name) }
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"eval hard", []string{"eval", "-experiment", "checkerboard-small", "-model", model, "-size", "8", "-gif", out("hard.gif")}},
		{"eval soft", []string{"eval", "-experiment", "checkerboard-small", "-model", model, "-size", "8", "-soft", "-gif", out("soft.gif")}},
		{"check", []string{"check", "-experiment", "checkerboard-small", "-model", model, "-gifs", out("gifs")}},
		{"gap", []string{"gap", "-experiment", "checkerboard-small", "-model", model}},
		{"export", []string{"export", "-model", model, "-o", out("rule.v")}},
		{"results", []string{"results", "-out", out("R.md"), "-img", out("img"), rundir}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, dir)
			var stdout, stderr bytes.Buffer
			code := run(ctx, tc.args, &stdout, &stderr)
			if code != 1 || !strings.Contains(stderr.String(), "dlca "+tc.args[0]+": interrupted") {
				t.Fatalf("exit %d, stderr %q; want exit 1, interrupted", code, stderr.String())
			}
			if after := snapshot(t, dir); !reflect.DeepEqual(after, before) {
				t.Errorf("files changed: %v", keys(after))
			}
		})
	}
}

// TestSignalStopsEval runs a long soft rollout as a subprocess and sends it
// SIGINT or SIGTERM: it must stop within seconds with exit status 1, say it
// was interrupted, and write no GIF nor -states file nor leave a temporary
// file.
func TestSignalStopsEval(t *testing.T) {
	dir := t.TempDir()
	model := smallModel(t, dir)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			gif, states := filepath.Join(dir, sig.String()+".gif"), filepath.Join(dir, sig.String()+".npy")
			// NOTE: 8x8, so that the states file of a million steps (2 GB)
			// passes eval's free-disk check; the rollout takes minutes.
			cmd := asCommand("eval", "-experiment", "checkerboard-small", "-model", model, "-soft", "-size", "8", "-steps", "1000000", "-gif", gif, "-states", states)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// NOTE: long enough for main to install its signal handler;
			// the rollout itself would take hours.
			time.Sleep(time.Second)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatal("still running 20 s after the signal")
			}
			if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "dlca eval: interrupted") {
				t.Fatalf("exit %d, stderr %q; want exit 1, interrupted", code, stderr.String())
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("the directory holds %d entries, want the model alone", len(entries))
			}
		})
	}
}

// randomModel returns a model of experiment name's config with random
// logits, so that its rollouts change the state.
func randomModel(t *testing.T, name string) (*experiments.Experiment, *dlca.Model) {
	t.Helper()
	e, err := experiments.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 0))
	for _, l := range m.Layers() {
		for i := range l.Logits.Len() {
			l.Logits.SetAt(i, 4*rng.NormFloat64())
		}
	}
	return e, m
}

// TestResultsSkipsWhatIsNotARun: among the paths given (a glob such as
// out/* names these), a folder without run.json and a plain file are
// skipped with a note naming them, and the page is written from the run;
// a damaged run.json is still an error, and refuses to write anything.
func TestResultsSkipsWhatIsNotARun(t *testing.T) {
	dir := t.TempDir()
	run := fakeRun(t, dir, "run", goodRun)
	other := filepath.Join(dir, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	file := writeFile(t, dir, "eval.gif", []byte("gif"))
	page := filepath.Join(dir, "results.md")
	code, out, errs := runCmd("results", "-out", page, other, run, file)
	if code != 0 || !strings.Contains(out, "(1 runs)") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want the page of one run", code, out, errs)
	}
	for _, skipped := range []string{other, file} {
		if !strings.Contains(errs, "skipping "+skipped+": not a training run folder") {
			t.Errorf("stderr %q: no note that %s was skipped", errs, skipped)
		}
	}
	if b, err := os.ReadFile(page); err != nil || !strings.Contains(string(b), "| checkerboard-small | pcg | 1 | 2 | 3 |") {
		t.Errorf("the page does not hold the run: %v\n%s", err, b)
	}
	bad := fakeRun(t, dir, "bad", `{"experiment": `)
	page2 := filepath.Join(dir, "results2.md")
	if code, _, errs := runCmd("results", "-out", page2, run, bad); code != 1 || !strings.Contains(errs, "damaged") {
		t.Errorf("a damaged run.json: exit %d, %q; want an error", code, errs)
	}
	if _, err := os.Stat(page2); err == nil {
		t.Error("a page was written despite the damaged run")
	}
}
