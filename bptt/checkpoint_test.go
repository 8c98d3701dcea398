package bptt_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/internal/safefile"
)

// asyncRun is a short asynchronous training run of the tiny float64 CA
// (random logits, fresh batches, fire masks): every part of a checkpoint
// matters to it.
func asyncRun(t *testing.T, iterations int) (bptt.Setup, bptt.Run) {
	setup := tinySetup(t)
	setup.Async = true
	src := func(rng *rand.Rand) *bptt.Batch { return tinyBatch(rng.Uint64()) }
	return setup, bptt.Run{Iterations: iterations, Seed: 4, Source: src}
}

// trainFrom trains setup on the CPU engine, resuming from ckpt if not nil
// and checkpointing to path every iteration; stopAt > 0 stops after that
// iteration as an interruption would.
func trainFrom(t *testing.T, setup bptt.Setup, run bptt.Run, path string, from *bptt.Checkpoint, stopAt int) ([]bptt.Metrics, *dlca.Model) {
	t.Helper()
	if from != nil {
		setup.Model = from.Model
	}
	eng, err := bptt.NewCPU(setup)
	if err != nil {
		t.Fatal(err)
	}
	k, err := bptt.NewCheckpointer(path, 1, "test", eng, &run, from)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if stopAt > 0 {
		run.Observers = append(run.Observers, func(e bptt.Event) {
			if e.Iteration == stopAt {
				cancel() // as SIGINT does: Train returns before the next iteration
			}
		})
	}
	_, m, err := bptt.Train(ctx, eng, setup, run)
	if stopAt > 0 && !errors.Is(err, context.Canceled) || stopAt == 0 && err != nil {
		t.Fatalf("Train: %v", err)
	}
	if err := k.Save(); err != nil {
		t.Fatal(err)
	}
	return k.Metrics(), m
}

func sameLogits(t *testing.T, got, want *dlca.Model) {
	t.Helper()
	for i, p := range got.Params() {
		q := want.Params()[i]
		for j := range p.Len() {
			if math.Float64bits(p.At(j)) != math.Float64bits(q.At(j)) {
				t.Fatalf("layer %d logit %d: %v, uninterrupted %v", i, j, p.At(j), q.At(j))
			}
		}
	}
}

// TestResumeIsBitIdentical: a run interrupted after iteration 3 and resumed
// from its checkpoint file ends with the model and metrics of a run that
// was never interrupted, bit for bit (float64 async tiny CA and the
// float32 small checkerboard), resumed twice in a row too.
func TestResumeIsBitIdentical(t *testing.T) {
	setup, run := asyncRun(t, 7)
	cases := map[string]struct {
		setup bptt.Setup
		run   bptt.Run
	}{"float64-async": {setup, run}}
	e, err := experiments.Get("checkerboard-small")
	if err != nil {
		t.Fatal(err)
	}
	e.Iterations = 5
	m, _ := dlca.New(e.Model, autograd.Float32)
	cases["float32-checkerboard"] = struct {
		setup bptt.Setup
		run   bptt.Run
	}{e.Setup(m), e.Run()}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			wantMetrics, want := trainFrom(t, c.setup, c.run, filepath.Join(dir, "whole.ckpt"), nil, 0)
			path := filepath.Join(dir, "run.ckpt")
			trainFrom(t, c.setup, c.run, path, nil, 2)
			ck, err := bptt.LoadCheckpoint(path)
			if err != nil || ck.Iteration != 2 {
				t.Fatalf("checkpoint after the interruption: %v, %+v", err, ck)
			}
			trainFrom(t, c.setup, c.run, path, ck, 3)
			ck, err = bptt.LoadCheckpoint(path)
			if err != nil || ck.Iteration != 3 {
				t.Fatalf("checkpoint after the second interruption: %v", err)
			}
			gotMetrics, got := trainFrom(t, c.setup, c.run, path, ck, 0)
			sameLogits(t, got, want)
			if len(gotMetrics) != len(wantMetrics) {
				t.Fatalf("%d metrics, uninterrupted %d", len(gotMetrics), len(wantMetrics))
			}
			for i, g := range gotMetrics {
				w := wantMetrics[i]
				if g.Iteration != w.Iteration || g.SoftLoss != w.SoftLoss || g.HardLoss != w.HardLoss || g.ActiveGates != w.ActiveGates {
					t.Fatalf("iteration %d: %+v, uninterrupted %+v", i+1, g, w)
				}
			}
		})
	}
}

// TestResumeNeedsTheCheckpoint shows that the test above can fail: resuming
// with the right model but a fresh optimiser, or a fresh random source,
// ends elsewhere.
func TestResumeNeedsTheCheckpoint(t *testing.T) {
	setup, run := asyncRun(t, 5)
	dir := t.TempDir()
	_, want := trainFrom(t, setup, run, filepath.Join(dir, "whole.ckpt"), nil, 0)
	path := filepath.Join(dir, "run.ckpt")
	trainFrom(t, setup, run, path, nil, 2)
	for _, spoil := range []string{"optimizer", "rng"} {
		ck, err := bptt.LoadCheckpoint(path)
		if err != nil {
			t.Fatal(err)
		}
		fresh, _ := bptt.NewCPU(setup)
		switch spoil {
		case "optimizer":
			ck.Optimizer, _ = fresh.OptimizerState()
		case "rng":
			ck.RNG, _ = rand.NewPCG(run.Seed, 1).MarshalBinary()
		}
		_, got := trainFrom(t, setup, run, filepath.Join(dir, spoil+".ckpt"), ck, 0)
		same := true
		for i, p := range got.Params() {
			for j := range p.Len() {
				same = same && p.At(j) == want.Params()[i].At(j)
			}
		}
		if same {
			t.Errorf("resuming with a fresh %s gave the uninterrupted model", spoil)
		}
	}
}

func writeCheckpoint(t *testing.T, setup bptt.Setup) []byte {
	t.Helper()
	_, run := asyncRun(t, 2)
	path := filepath.Join(t.TempDir(), "c.ckpt")
	trainFrom(t, setup, run, path, nil, 0)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBadCheckpoints: every damaged checkpoint is refused with an error
// saying what is wrong, never a panic.
func TestBadCheckpoints(t *testing.T) {
	good := writeCheckpoint(t, tinySetup(t))
	edit := func(from, to string) []byte {
		if !bytes.Contains(good, []byte(from)) {
			t.Fatalf("the checkpoint has no %q", from)
		}
		return bytes.Replace(good, []byte(from), []byte(to), 1)
	}
	var model bytes.Buffer
	if err := tinySetup(t).Model.Write(&model); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "empty checkpoint"},
		{"truncated", good[:len(good)/2], "truncated"},
		{"not JSON", []byte("PK\x03\x04 a zip file"), "not valid JSON"},
		{"a model file", model.Bytes(), "not a checkpoint"},
		{"newer version", edit(`"version":2`, `"version":3`), "version 3"},
		{"version 1 with settings", edit(`"version":2`, `"version":1,"settings":{"out":"x"}`), "version 1 with settings"},
		{"negative iteration", edit(`"iteration":2`, `"iteration":-1`), "damaged"},
		{"past the end", edit(`"iteration":2`, `"iteration":9`), "damaged"},
		{"unknown dtype", edit(`"dtype":"float64"`, `"dtype":"int8"`), "dtype"},
		{"no random state", edit(`"rng":"`, `"rng":"","x":"`), "unknown field"},
		{"bad random state", edit(`"rng":"`, `"rng":"AAAA`), "random state"},
		{"missing logits", edit(`"logits64":[[`, `"logits64":[[],[`), "float64 logits"},
		{"bad model", edit(`"in":`, `"in":-`), "model"},
		{"unknown field", edit(`"seed":4`, `"seed":4,"colour":1`), "unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := bptt.ReadCheckpoint(bytes.NewReader(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

// TestBadOptimizerState: a checkpoint whose optimiser state no run can have
// written (a learning rate of 0, negative or huge, a negative second moment)
// is refused on load with the file and the field named, rather than resumed
// into a run that diverges or stands still.
func TestBadOptimizerState(t *testing.T) {
	good := writeCheckpoint(t, tinySetup(t))
	dir := t.TempDir()
	for _, tc := range []struct {
		name, from, to, field string
	}{
		{"zero learning rate", `"lr":0.05`, `"lr":0`, "optimizer.lr is 0"},
		{"negative learning rate", `"lr":0.05`, `"lr":-0.05`, "optimizer.lr is -0.05"},
		{"huge learning rate", `"lr":0.05`, `"lr":1e300`, "optimizer.lr is 1e+300"},
		{"negative steps", `"steps":2`, `"steps":-2`, "optimizer.steps is -2"},
		{"negative second moment", `"v":[[`, `"v":[[-1e-9,`, "optimizer.buffers.v[0][0] is -1e-09"},
		{"huge first moment", `"m":[[`, `"m":[[1e400,`, "/optimizer/buffers/m/0/0: cannot read a JSON number 1e400"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !bytes.Contains(good, []byte(tc.from)) {
				t.Fatalf("the checkpoint has no %q", tc.from)
			}
			path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-")+".ckpt")
			if err := os.WriteFile(path, bytes.Replace(good, []byte(tc.from), []byte(tc.to), 1), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := bptt.LoadCheckpoint(path)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("error %v, want one naming %s and %q", err, path, tc.field)
			}
		})
	}
}

// TestCheckpointForAnotherModel: a checkpoint whose optimiser state does not
// fit the engine's parameters is refused when resuming.
func TestCheckpointForAnotherModel(t *testing.T) {
	ck, err := bptt.ReadCheckpoint(bytes.NewReader(writeCheckpoint(t, tinySetup(t))))
	if err != nil {
		t.Fatal(err)
	}
	ck.Optimizer.Buffers["m"] = ck.Optimizer.Buffers["m"][:1]
	setup, run := asyncRun(t, 4)
	setup.Model = ck.Model
	eng, _ := bptt.NewCPU(setup)
	if err := ck.Resume(eng, &run); err == nil || !strings.Contains(err.Error(), "optimiser state") {
		t.Fatalf("resume: %v", err)
	}
	if _, err := bptt.NewCheckpointer("x", 1, "another", eng, &run, ck); err == nil || !strings.Contains(err.Error(), "not \"another\"") {
		t.Fatalf("resume under another label: %v", err)
	}
}

// TestFailedSaveKeepsThePreviousCheckpoint injects a write error half-way
// through a save: the previous checkpoint is still there, byte for byte,
// and no temporary file is left behind.
func TestFailedSaveKeepsThePreviousCheckpoint(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ckpt")
	old := writeCheckpoint(t, tinySetup(t))
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	ck, err := bptt.ReadCheckpoint(bytes.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	ck.Iteration = 1
	full := errors.New("no space left on device (injected)")
	err = safefile.Write(path, func(w io.Writer) error {
		if err := ck.Write(&limitedWriter{w: w, n: 1000}); err != nil {
			return err
		}
		return full
	})
	if !errors.Is(err, full) && !strings.Contains(fmt.Sprint(err), "injected") {
		t.Fatalf("save: %v", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, old) {
		t.Fatal("the previous checkpoint changed")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("the directory holds %d entries, want the checkpoint alone", len(entries))
	}
}

// limitedWriter fails after n bytes, like a full disk.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if len(p) > l.n {
		n, _ := l.w.Write(p[:l.n])
		l.n = 0
		return n, errors.New("no space left on device (injected)")
	}
	l.n -= len(p)
	return l.w.Write(p)
}

// TestKillDuringSaveKeepsThePreviousCheckpoint kills (SIGKILL) a process in
// the middle of writing a checkpoint: the previous checkpoint is intact.
// The child is this test binary, re-run with BPTT_TEST_SAVE_AND_HANG set:
// it starts saving over the checkpoint, writes half of it, says so, and
// waits to be killed.
func TestKillDuringSaveKeepsThePreviousCheckpoint(t *testing.T) {
	if path := os.Getenv("BPTT_TEST_SAVE_AND_HANG"); path != "" {
		saveAndHang(path)
		return
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "run.ckpt")
	old := writeCheckpoint(t, tinySetup(t))
	if err := os.WriteFile(path, old, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillDuringSaveKeepsThePreviousCheckpoint$")
	cmd.Env = append(os.Environ(), "BPTT_TEST_SAVE_AND_HANG="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 9)
	if _, err := io.ReadFull(out, line); err != nil || string(line) != "mid-write" {
		cmd.Process.Kill()
		t.Fatalf("child said %q (%v)", line, err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, old) {
		t.Fatalf("after a kill during the save the checkpoint is not the previous one (%v)", err)
	}
	if _, err := bptt.LoadCheckpoint(path); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Fatalf("want the checkpoint and the killed save's temporary file, found %d entries", len(entries))
	}
}

func saveAndHang(path string) {
	ck, err := bptt.LoadCheckpoint(path)
	if err != nil {
		panic(err)
	}
	var buf bytes.Buffer
	if err := ck.Write(&buf); err != nil {
		panic(err)
	}
	safefile.Write(path, func(w io.Writer) error {
		w.Write(buf.Bytes()[:buf.Len()/2])
		fmt.Print("mid-write")
		time.Sleep(time.Hour) // until killed
		return nil
	})
}

// BenchmarkCheckpointSave times saving a checkpoint of the paper's
// checkerboard after one iteration (AdamW moments filled), fsync included,
// and reports its size.
func BenchmarkCheckpointSave(b *testing.B) {
	e, m := experimentModel(b, "checkerboard")
	eng, err := bptt.NewCPU(e.Setup(m))
	if err != nil {
		b.Fatal(err)
	}
	if _, err := eng.Iterate(e.Source()(newRand(1))); err != nil {
		b.Fatal(err)
	}
	run := e.Run()
	path := filepath.Join(b.TempDir(), "checkpoint.json")
	k, err := bptt.NewCheckpointer(path, 1, e.Name, eng, &run, nil)
	if err != nil {
		b.Fatal(err)
	}
	it := 0
	for b.Loop() {
		it++
		k.Observe(bptt.Event{Metrics: bptt.Metrics{Iteration: it}, Iterations: 1 << 30})
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(st.Size())/(1<<20), "MiB")
}
