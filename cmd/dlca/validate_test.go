package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
)

// TestMain lets the tests run this test binary as the dlca command: with
// DLCA_RUN_AS_COMMAND set to the arguments (separated by \x1f) it is the
// command, signal handling and exit status included.
func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv("DLCA_RUN_AS_COMMAND"); ok {
		os.Args = append([]string{"dlca"}, strings.Split(args, "\x1f")...)
		main()
	}
	os.Exit(m.Run())
}

// asCommand returns the dlca command line args as a subprocess.
func asCommand(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "DLCA_RUN_AS_COMMAND="+strings.Join(args, "\x1f"))
	return cmd
}

// startCommand starts the dlca command line args as a subprocess and
// returns it with its standard error.
func startCommand(t *testing.T, args ...string) (*exec.Cmd, io.Reader) {
	t.Helper()
	cmd := asCommand(args...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, pipe
}

// snapshot maps every file under dir to a digest of its content, mode and
// modification time (directories: to their mode; creating and removing a
// temporary file to test that a directory is writable changes its time).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			files[path] = info.Mode().String()
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		files[path] = string(sum[:]) + info.Mode().String() + info.ModTime().String()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// writeFile writes a file for a test case and returns its path.
func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBadInput runs the command on malformed model files, impossible
// configs, bad checkpoints and flags, and unwritable output directories.
// Each must exit non-zero with an error that says what is wrong, and leave
// every existing file as it was.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	model, err := os.ReadFile(filepath.Join("..", "..", "dlca", "testdata", "model-tiny.json"))
	if err != nil {
		t.Fatal(err)
	}
	// editOf returns a function that writes a copy of src (what) with one
	// edit as a file of the test.
	editOf := func(src []byte, what string) func(name, from, to string) string {
		return func(name, from, to string) string {
			if !bytes.Contains(src, []byte(from)) {
				t.Fatalf("%s has no %q", what, from)
			}
			return writeFile(t, dir, name, bytes.Replace(src, []byte(from), []byte(to), 1))
		}
	}
	edit := editOf(model, "model-tiny.json")
	cfgEdit := func(name, from, to string) string { return edit(name, `"config": {`+from, `"config": {`+to) }
	good := writeFile(t, dir, "good.json", model)
	// An output directory of an earlier run, which no failure may touch.
	out := filepath.Join(dir, "out")
	code, _, errs := runCmd("train", "-experiment", "checkerboard-small", "-iterations", "2", "-out", out)
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, errs)
	}
	ckpt := filepath.Join(out, "checkpoint.json")
	notDir := writeFile(t, dir, "a-file", []byte("x"))
	// A run refused before training leaves no folder behind, not even an
	// empty one.
	fresh := filepath.Join(dir, "fresh", "run")
	goodCkpt, err := os.ReadFile(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	editCheckpoint := editOf(goodCkpt, "the checkpoint")

	cases := []struct {
		name string
		args []string
		want string
	}{
		// Model files.
		{"empty model", []string{"eval", "-model", writeFile(t, dir, "empty.json", nil)}, "empty model file"},
		{"truncated model", []string{"eval", "-model", writeFile(t, dir, "trunc.json", model[:len(model)/2])}, "truncated"},
		{"malformed model", []string{"eval", "-model", writeFile(t, dir, "bad.json", []byte(`{"format": dlca}`))}, "not valid JSON"},
		{"binary file", []string{"eval", "-model", writeFile(t, dir, "bin.json", []byte{0x89, 'P', 'N', 'G', 0, 1})}, "not valid JSON"},
		{"not a model", []string{"eval", "-model", edit("fmt.json", `"dlca-model"`, `"dlca-circuit"`)}, "not a model file"},
		{"newer version", []string{"eval", "-model", edit("v2.json", `"version": 1`, `"version": 2`)}, "newer than this program"},
		{"version 0", []string{"eval", "-model", edit("v0.json", `"version": 1`, `"version": 0`)}, "version 0 is invalid"},
		{"unknown field", []string{"eval", "-model", edit("field.json", `"version": 1`, `"version": 1, "colour": "red"`)}, "unknown field"},
		{"missing model", []string{"eval", "-model", filepath.Join(dir, "none.json")}, "cannot open model file"},
		{"wrong layer shape", []string{"eval", "-model", edit("shape.json", `"in": 9`, `"in": 10`)}, "the config needs 9/8/2"},
		{"wiring out of range", []string{"eval", "-model", edit("wire.json", `"a": [`, `"a": [99,`)}, "wiring has 9 a"},
		{"too few logits", []string{"eval", "-model", edit("logits.json", `"logits": [`, `"logits": [0],"x":[`)}, "unknown field"},
		{"model for other channels", []string{"eval", "-experiment", "checkerboard-small", "-model", good}, "has 2 channels but experiment"},
		// Configs inside model files.
		{"zero channels", []string{"eval", "-model", edit("c0.json", `"channels": 2`, `"channels": 0`)}, "channels is 0"},
		{"inconsistent layer sizes", []string{"eval", "-model", edit("kl.json", "\"kernel_layers\": [\n   9,\n   8,", "\"kernel_layers\": [\n   9,\n   7,")}, "kernel_layers [9 7 4 2]: must start with 9"},
		{"layers too narrow for unique wiring", []string{"eval", "-model", edit("kl2.json", "\"kernel_layers\": [\n   9,\n   8,\n   4,", "\"kernel_layers\": [\n   9,\n   8,\n   3,")}, "kernel_layers[2] has 3 gates for 8 inputs"},
		{"update last layer not channels", []string{"eval", "-model", edit("last.json", "4,\n   2\n  ],\n  \"seed\"", "4,\n   3\n  ],\n  \"seed\"")}, "exactly channels = 2"},
		{"impossible unique wiring", []string{"eval", "-model", edit("uniq.json", "\"update_layers\": [\n   8,", "\"update_layers\": [\n   2,")}, "unique wiring needs 2*gates >= inputs"},
		{"fire rate 0", []string{"eval", "-model", edit("fr0.json", `"fire_rate": 0.6`, `"fire_rate": 0`)}, "fire_rate is 0: must be in (0, 1]"},
		{"fire rate above 1", []string{"eval", "-model", edit("fr2.json", `"fire_rate": 0.6`, `"fire_rate": 1.5`)}, "fire_rate is 1.5"},
		{"negative grid", []string{"eval", "-model", cfgEdit("h.json", "\n  \"height\": 4", "\n  \"height\": -4")}, "grid is -4x4"},
		{"unknown boundary", []string{"eval", "-model", edit("bnd.json", `"periodic"`, `"toroidal"`)}, "unknown boundary"},
		// Flags.
		{"negative steps", []string{"eval", "-model", good, "-steps", "-1"}, "-steps -1"},
		{"zero size", []string{"eval", "-model", good, "-size", "0"}, "-size 0"},
		{"unknown experiment", []string{"train", "-experiment", "checkerbored", "-out", out}, `unknown experiment "checkerbored"`},
		{"unknown experiment to check", []string{"check", "-experiment", "lizzard", "-model", good}, "unknown experiment"},
		{"gap without a model", []string{"gap", "-experiment", "lizard"}, "-model is required"},
		{"gap on a model for other channels", []string{"gap", "-experiment", "lizard", "-model", good}, "has 2 channels but experiment lizard"},
		{"gap on a damaged model", []string{"gap", "-model", edit("gap.json", `"logits": [`, `"logits": [0],"x":[`)}, "unknown field"},
		{"negative iterations", []string{"train", "-iterations", "-5", "-out", out}, "-iterations -5"},
		{"negative recompute", []string{"train", "-experiment", "checkerboard-small", "-recompute", "-2", "-out", out}, "-recompute -2"},
		{"negative checkpoint interval", []string{"train", "-experiment", "checkerboard-small", "-checkpoint-every", "-1", "-out", out}, "-checkpoint-every -1"},
		{"bad memory size", []string{"train", "-experiment", "checkerboard-small", "-max-memory", "lots", "-out", out}, "memory size \"lots\""},
		{"over the memory limit", []string{"train", "-experiment", "checkerboard", "-recompute", "20", "-max-memory", "64MiB", "-out", out}, "-max-memory is 64.0 MiB: train with gradient checkpointing (-recompute 1 "},
		{"over the limit even recomputed", []string{"train", "-experiment", "checkerboard", "-recompute", "4", "-max-memory", "1MiB", "-out", out}, "is 1.0 MiB: free some memory, or raise -max-memory"},
		// Checkpoints.
		{"resume missing", []string{"train", "-experiment", "checkerboard-small", "-resume", filepath.Join(dir, "none.ckpt"), "-out", out}, "cannot open checkpoint"},
		{"resume a model file", []string{"train", "-experiment", "checkerboard-small", "-resume", good, "-out", out}, "not a checkpoint"},
		{"resume truncated", []string{"train", "-experiment", "checkerboard-small", "-resume", truncatedCopy(t, ckpt, dir), "-out", out}, "truncated"},
		{"resume as another experiment", []string{"train", "-experiment", "checkerboard", "-resume", ckpt, "-out", out}, `-experiment checkerboard contradicts the checkpoint ` + ckpt + `, whose run has experiment checkerboard-small`},
		{"resume a checkpoint of another model", []string{"train", "-experiment", "checkerboard-small", "-resume", foreignCheckpoint(t, good, dir), "-out", out}, "whose model has config {\"height\":4"},
		{"resume with another seed", []string{"train", "-experiment", "checkerboard-small", "-seed", "5", "-resume", ckpt, "-out", out}, "-seed 5 contradicts the checkpoint " + ckpt + ", whose run has seed 23"},
		// Output directories.
		{"output is a file", []string{"train", "-experiment", "checkerboard-small", "-out", notDir}, "cannot create the output directory"},
		{"output under a file", []string{"train", "-experiment", "checkerboard-small", "-out", filepath.Join(notDir, "sub")}, "not a directory"},
		{"output in /proc", []string{"train", "-experiment", "checkerboard-small", "-out", "/proc/dlca-out"}, "cannot create the output directory"},
		{"checkpoint in an unwritable place", []string{"train", "-experiment", "checkerboard-small", "-checkpoint", "/proc/self/dlca.ckpt", "-out", fresh}, "cannot write into /proc/self"},
		{"checkpoint is a directory", []string{"train", "-experiment", "checkerboard-small", "-checkpoint", dir, "-out", fresh}, "-checkpoint " + dir + " is a directory"},
		{"checkpoint is a device", []string{"train", "-experiment", "checkerboard-small", "-checkpoint", os.DevNull, "-out", fresh}, "-checkpoint /dev/null is not a regular file but a device"},
		{"checkpoint in a missing folder", []string{"train", "-experiment", "checkerboard-small", "-checkpoint", filepath.Join(dir, "none", "c.json"), "-out", fresh}, "its folder " + filepath.Join(dir, "none") + " does not exist"},
		{"resume a checkpoint with learning rate 0", []string{"train", "-resume", editCheckpoint("lr0.ckpt", `"lr":0.05`, `"lr":0`), "-out", fresh}, "lr0.ckpt: bptt: checkpoint field optimizer.lr is 0"},
		{"resume a checkpoint with a negative second moment", []string{"train", "-resume", editCheckpoint("v.ckpt", `"v":[[`, `"v":[[-1,`), "-out", fresh}, "v.ckpt: bptt: checkpoint field optimizer.buffers.v[0][0] is -1"},
	}
	if os.Getuid() != 0 { // root writes anywhere
		ro := filepath.Join(dir, "read-only")
		if err := os.Mkdir(ro, 0o555); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct {
			name string
			args []string
			want string
		}{"read-only output", []string{"train", "-experiment", "checkerboard-small", "-out", ro}, "cannot write into"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, dir)
			code, _, errs := runCmd(tc.args...)
			if code == 0 || !strings.Contains(errs, tc.want) {
				t.Fatalf("exit %d, stderr %q; want a failure saying %q", code, errs, tc.want)
			}
			if strings.Contains(errs, "goroutine ") || strings.Contains(errs, "panic") {
				t.Fatalf("a panic trace: %s", errs)
			}
			after := snapshot(t, dir)
			for p, h := range before {
				if after[p] != h {
					t.Errorf("%s changed", p)
				}
			}
			for p := range after {
				if _, ok := before[p]; !ok {
					t.Errorf("%s appeared", p)
				}
			}
		})
	}
	t.Logf("%d bad inputs tried", len(cases))
}

// foreignCheckpoint writes a checkpoint labelled as the small checkerboard
// (seed 23) whose model is the model file at modelPath, of 2 channels.
func foreignCheckpoint(t *testing.T, modelPath, dir string) string {
	m, err := dlca.Load(modelPath)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := bptt.NewCPU(bptt.Setup{Model: m, Batch: 1, Steps: 1, LossChannels: []int{0}, Optimizer: bptt.PaperOptimizer(0.05)})
	if err != nil {
		t.Fatal(err)
	}
	opt, _ := eng.OptimizerState()
	rng, _ := rand.NewPCG(23, 1).MarshalBinary()
	c := &bptt.Checkpoint{Label: "checkerboard-small", Seed: 23, Iterations: 5, Model: m, Optimizer: opt, RNG: rng}
	path := filepath.Join(dir, "foreign.ckpt")
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

func truncatedCopy(t *testing.T, path, dir string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, "trunc.ckpt", b[:len(b)/3])
}

// TestSignalSavesCheckpoint runs training as a subprocess without periodic
// checkpoints, asks for one with SIGUSR1 once it trains, then sends it
// SIGINT or SIGTERM: it must exit with status 1, no panic, saying where the
// checkpoint is; resuming from it must give the model of an uninterrupted
// run, byte for byte.
func TestSignalSavesCheckpoint(t *testing.T) {
	dir := t.TempDir()
	const iterations = "12"
	whole := filepath.Join(dir, "whole")
	if code, _, errs := runCmd("train", "-experiment", "checkerboard-small", "-iterations", iterations, "-quiet", "-out", whole); code != 0 {
		t.Fatalf("uninterrupted run: exit %d: %s", code, errs)
	}
	want, err := os.ReadFile(filepath.Join(whole, "model.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			out := filepath.Join(dir, sig.String())
			ckpt := filepath.Join(out, "checkpoint.json")
			// No periodic checkpoints: once training runs, SIGUSR1 asks for
			// one, then sig stops the run.
			cmd, pipe := startCommand(t, "train", "-experiment", "checkerboard-small", "-iterations", iterations, "-checkpoint-every", "0", "-out", out)
			var stderr bytes.Buffer
			training := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				sc := bufio.NewScanner(pipe)
				for sc.Scan() {
					if stderr.Len() == 0 && strings.HasPrefix(sc.Text(), "iter ") {
						close(training)
					}
					stderr.WriteString(sc.Text() + "\n")
				}
			}()
			select {
			case <-training:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Fatal("training did not start within 30 s")
			}
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				if _, err := os.Stat(ckpt); err == nil {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("no checkpoint 30 s after SIGUSR1")
				}
				cmd.Process.Signal(syscall.SIGUSR1)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			<-done
			err = cmd.Wait()
			ck, lerr := bptt.LoadCheckpoint(ckpt)
			if lerr != nil {
				t.Fatal(lerr)
			}
			msg := stderr.String()
			switch {
			case strings.Contains(msg, "panic") || strings.Contains(msg, "goroutine "):
				t.Fatalf("panic trace: %s", msg)
			case err == nil:
				// The run finished before the signal arrived: nothing to test.
				t.Logf("the run finished first (checkpoint at %d)", ck.Iteration)
			case cmd.ProcessState.ExitCode() != 1 || !strings.Contains(msg, "interrupted after iteration") || !strings.Contains(msg, "-resume "+ckpt):
				t.Fatalf("exit %v, stderr %q", err, msg)
			}
			t.Logf("%v after iteration %d", sig, ck.Iteration)
			code, _, errs := runCmd("train", "-experiment", "checkerboard-small", "-resume", ckpt, "-quiet", "-out", out)
			if code != 0 {
				t.Fatalf("resume: exit %d: %s", code, errs)
			}
			got, err := os.ReadFile(filepath.Join(out, "model.json"))
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("the resumed model differs from the uninterrupted one (%v)", err)
			}
		})
	}
}
