package runctl

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
)

// parse registers a training command's flags on o, as dlca train does, and
// parses args.
func parse(t *testing.T, o *LongRun, args ...string) {
	t.Helper()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.StringVar(&o.Experiment, "experiment", "checkerboard", "")
	fs.StringVar(&o.Out, "out", "", "")
	fs.IntVar(&o.Iterations, "iterations", 0, "")
	fs.Uint64Var(&o.Seed, "seed", 23, "")
	fs.Uint64Var(&o.WiringSeed, "wiring-seed", 23, "")
	fs.StringVar(&o.Device, "device", "cpu", "")
	o.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	o.Given(fs)
}

// train runs o's experiment for o.Iterations on the CPU through Launch, as
// dlca train does, resuming from from if not nil; observe, if not nil,
// watches every iteration. It returns what Launch warned, and Launch's or
// End's error.
func train(t *testing.T, o *LongRun, from *bptt.Checkpoint, observe bptt.Observer) (warned string, err error) {
	t.Helper()
	var warn bytes.Buffer
	l, err := o.Launch(testJob(t, o, observe), from, &warn)
	if err != nil {
		return warn.String(), err
	}
	defer l.Close()
	_, _, err = bptt.Train(context.Background(), l.Engine, l.Setup, l.Run)
	return warn.String(), l.End(err)
}

// testJob is the Job of o's experiment on the CPU, with observe (if not
// nil) among the run's observers.
func testJob(t *testing.T, o *LongRun, observe bptt.Observer) Job {
	t.Helper()
	e, err := experiments.Get(o.Experiment)
	if err != nil {
		t.Fatal(err)
	}
	e.Iterations, e.Seed, e.Model.Seed = o.Iterations, o.Seed, o.WiringSeed
	run := e.Run()
	if observe != nil {
		run.Observers = append(run.Observers, observe)
	}
	return Job{
		Config: e.Model,
		New:    func() (*dlca.Model, error) { return dlca.New(e.Model, autograd.Float32) },
		Setup:  e.Setup,
		Run:    run,
		Height: e.Model.Height, Width: e.Model.Width,
		SelectEngine: func(_ string, s bptt.Setup, _ io.Writer) (bptt.Engine, string, error) {
			eng, err := bptt.NewCPU(s)
			return eng, "cpu", err
		},
	}
}

// TestResumedSettings: a checkpoint carries its run's settings; resuming
// takes every setting not given from it, refuses a given experiment, seed
// or wiring seed that contradicts it (naming both values), and lets the
// device, the output, the checkpoints' place and rate, the recomputation
// and a larger iteration count be changed. A version 1 checkpoint (no settings)
// still resumes, with -out required.
func TestResumedSettings(t *testing.T) {
	dir := t.TempDir()
	first := &LongRun{Command: "dlca train"}
	out := filepath.Join(dir, "run")
	parse(t, first, "-experiment", "checkerboard-small", "-seed", "5", "-wiring-seed", "7", "-iterations", "2", "-checkpoint-every", "1", "-recompute", "3", "-out", out)
	if _, err := train(t, first, nil, nil); err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(out, "checkpoint.json")
	b, err := os.ReadFile(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	// The same checkpoint as format version 1 wrote it: no settings.
	v1 := b[:bytes.Index(b, []byte(`,"settings":`))]
	v1 = append(bytes.Replace(v1, []byte(`"version":2`), []byte(`"version":1`), 1), "}\n"...)
	old := filepath.Join(dir, "v1.json")
	if err := os.WriteFile(old, v1, 0o644); err != nil {
		t.Fatal(err)
	}
	type want struct {
		experiment        string
		seed, wiring      uint64
		iterations, every int
		recompute         int
		out, device       string
	}
	recorded := want{"checkerboard-small", 5, 7, 2, 1, 3, out, "cpu"}
	for _, tc := range []struct {
		name string
		args []string
		want want
		err  string
	}{
		{"the checkpoint alone", []string{"-resume", ckpt}, recorded, ""},
		{"the same settings given", []string{"-resume", ckpt, "-experiment", "checkerboard-small", "-seed", "5", "-wiring-seed", "7", "-device", "cpu"}, recorded, ""},
		{"another experiment", []string{"-resume", ckpt, "-experiment", "checkerboard"}, want{}, "-experiment checkerboard contradicts the checkpoint " + ckpt + ", whose run has experiment checkerboard-small"},
		{"another seed", []string{"-resume", ckpt, "-seed", "6"}, want{}, "-seed 6 contradicts the checkpoint " + ckpt + ", whose run has seed 5"},
		{"another wiring seed", []string{"-resume", ckpt, "-wiring-seed", "23"}, want{}, "-wiring-seed 23 contradicts the checkpoint " + ckpt + ", whose run has wiring-seed 7"},
		{"where to train and save, how often, more iterations, another recomputation", []string{"-resume", ckpt, "-device", "auto", "-out", "elsewhere", "-checkpoint-every", "9", "-iterations", "10", "-recompute", "0"},
			want{"checkerboard-small", 5, 7, 10, 9, 0, "elsewhere", "auto"}, ""},
		{"version 1: the seeds and experiment from the checkpoint, the rest from the flags", []string{"-resume", old},
			want{"checkerboard-small", 5, 7, 2, 50, 0, "", "cpu"}, ""},
		{"version 1 with a contradicting wiring seed", []string{"-resume", old, "-wiring-seed", "23"}, want{}, "whose run has wiring-seed 7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &LongRun{}
			parse(t, o, tc.args...)
			_, err := o.Resumed()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Resumed: %v, want an error saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := want{o.Experiment, o.Seed, o.WiringSeed, o.Iterations, o.Every, o.Recompute, o.Out, o.Device}
			if got != tc.want {
				t.Fatalf("settings %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestFinalSaveFails: a run whose checkpoint cannot be saved at its last
// iteration ends with an error saying so, not with success, and is not
// reported as a warning that training goes on; a failed periodic save is.
func TestFinalSaveFails(t *testing.T) {
	for _, tc := range []struct {
		name     string
		breakAt  int // iteration after which the checkpoint's folder goes
		warnings int
	}{
		{"the folder goes before the last save", 2, 0},
		{"the folder goes before a periodic save", 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ckDir := filepath.Join(dir, "ck")
			if err := os.Mkdir(ckDir, 0o755); err != nil {
				t.Fatal(err)
			}
			o := &LongRun{Command: "dlca train"}
			parse(t, o, "-experiment", "checkerboard-small", "-iterations", "3", "-checkpoint-every", "1", "-out", filepath.Join(dir, "out"), "-checkpoint", filepath.Join(ckDir, "c.json"))
			// Observers run in order: this one before the checkpointer's
			// save of the same iteration.
			warn, err := train(t, o, nil, func(e bptt.Event) {
				if e.Iteration == tc.breakAt+1 {
					os.RemoveAll(ckDir)
				}
			})
			if err == nil || !strings.Contains(err.Error(), "final checkpoint could not be saved") {
				t.Fatalf("run: %v, want the final checkpoint's failure", err)
			}
			if n := strings.Count(warn, "training goes on"); n != tc.warnings {
				t.Fatalf("%d warnings, want %d:\n%s", n, tc.warnings, warn)
			}
		})
	}
}

// TestStoppedByALostDevice: a run stopped by a lost device (an error
// wrapping autograd.ErrDeviceLost) is told how to go on from its last
// checkpoint, on the CPU if the GPU stays gone; one stopped by anything else
// (a NaN, which resuming would meet again) only where that checkpoint is.
func TestStoppedByALostDevice(t *testing.T) {
	o := &LongRun{Command: "dlca train"}
	out := filepath.Join(t.TempDir(), "run")
	parse(t, o, "-experiment", "checkerboard-small", "-iterations", "2", "-checkpoint-every", "1", "-out", out)
	if _, err := train(t, o, nil, nil); err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(out, "checkpoint.json")
	lost := o.Stopped(fmt.Errorf("bptt: iteration 3: gpu: mapping \"logits\" for readback failed: device-lost (%w)", autograd.ErrDeviceLost))
	if want := "the last good checkpoint is " + ckpt + " (iteration 2); go on with: dlca train -resume " + ckpt + " (add -device cpu if the GPU stays gone)"; !strings.Contains(lost.Error(), want) || !errors.Is(lost, autograd.ErrDeviceLost) {
		t.Errorf("lost device: %q; want it to say %q", lost, want)
	}
	nan := o.Stopped(errors.New("bptt: iteration 3: the loss is NaN"))
	if !strings.Contains(nan.Error(), "the last good checkpoint is "+ckpt) || strings.Contains(nan.Error(), "go on with") {
		t.Errorf("a NaN: %q; want where the checkpoint is, and no command that would meet the NaN again", nan)
	}
}
