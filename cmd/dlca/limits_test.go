package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dlca/dlca/cmd/internal/runctl"
	"github.com/dlca/dlca/experiments"
)

// limitAS is the address space a size case's subprocess may take (prlimit
// --as): a hard cap the kernel enforces, unlike debug.SetMemoryLimit. A
// Go program reserves more address space than it uses, so the cap is 2
// GiB; the resident peak each case may reach is peakLimit.
const (
	limitAS   = 2 << 30
	peakLimit = 256 << 20
)

// limitedRun runs the dlca command line args as a subprocess under
// prlimit --as=limitAS and returns its exit status, standard error and
// peak resident memory in bytes, measured by GNU time.
//
// NOTE: a process's peak (ru_maxrss) carries over exec from the process
// it was forked from, so the test binary's own child would report the
// test's peak; time forks the command from its own small process. The
// test is skipped where prlimit or /usr/bin/time is missing.
func limitedRun(t *testing.T, args ...string) (code int, stderr string, peak int64) {
	t.Helper()
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit here to cap the memory")
	}
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		t.Skip("no /usr/bin/time here to measure the peak")
	}
	peakFile := filepath.Join(t.TempDir(), "peak")
	cmd := asCommand(args...)
	cmd.Args = []string{prlimit, fmt.Sprintf("--as=%d", limitAS), "--", "/usr/bin/time", "-f", "%M", "-o", peakFile, "--", os.Args[0]}
	cmd.Path = prlimit
	var errs bytes.Buffer
	cmd.Stderr = &errs
	cmd.Run() // the exit status is checked by the caller
	b, err := os.ReadFile(peakFile)
	if err != nil {
		t.Fatalf("no peak measured: %v (stderr %q)", err, errs.String())
	}
	lines := strings.Fields(string(b)) // "Command exited with non-zero status 1" first
	kib, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
	if err != nil {
		t.Fatalf("peak %q: %v", b, err)
	}
	return cmd.ProcessState.ExitCode(), errs.String(), kib * 1024
}

// pngOfSize returns the first bytes of a PNG picture whose header says
// width x height: the signature and a valid IHDR chunk (CRC included),
// which is all image/png.DecodeConfig reads.
func pngOfSize(width, height uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := binary.BigEndian.AppendUint32(nil, width)
	ihdr = binary.BigEndian.AppendUint32(ihdr, height)
	ihdr = append(ihdr, 8, 0, 0, 0, 0) // 8-bit grey, no interlace
	chunk := append([]byte("IHDR"), ihdr...)
	binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
	b.Write(chunk)
	binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(chunk))
	return b.Bytes()
}

// modelWithChecks writes model (a random checkerboard-small model) with an
// experiment record whose checks are checks, as dlca train records them.
func modelWithChecks(t *testing.T, dir, name string, checks []experiments.CheckSpec) string {
	t.Helper()
	_, m := randomModel(t, "checkerboard-small")
	cfg, err := experiments.Builtin("checkerboard-small")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Checks = checks
	if m.Experiment, err = json.Marshal(cfg); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestSizesBoundedBeforeAllocation: every size a user can give is checked
// before it is allocated. Each case runs the real command under a hard
// address-space cap and must exit 1 with a message naming the input and
// the limit, peak under peakLimit resident, and change no file. Before
// the fixes, /dev/zero as a config was read to its end (out of memory), a
// PNG header of 50000x50000 was decoded, a check of size 100000 was
// allocated (a panic), and the testbench was written.
func TestSizesBoundedBeforeAllocation(t *testing.T) {
	dir := t.TempDir()
	model := smallModel(t, dir)
	zeroLink := filepath.Join(dir, "zero.png")
	if err := os.Symlink("/dev/zero", zeroLink); err != nil {
		t.Fatal(err)
	}
	// 300 MB named .png, none of it a picture (sparse: written instantly).
	huge := filepath.Join(dir, "huge.png")
	if f, err := os.Create(huge); err != nil {
		t.Fatal(err)
	} else {
		f.Truncate(300 << 20)
		f.Close()
	}
	writeFile(t, dir, "wide.png", pngOfSize(50000, 50000))
	wideCfg, err := experiments.Builtin("checkerboard-small")
	if err != nil {
		t.Fatal(err)
	}
	wideCfg.Name, wideCfg.Target = "wide", experiments.TargetSpec{Kind: "png", Picture: experiments.Picture{File: "wide.png"}}
	var text bytes.Buffer
	if err := wideCfg.WriteTOML(&text); err != nil {
		t.Fatal(err)
	}
	cfg := writeFile(t, dir, "wide.toml", text.Bytes())
	sweepFile := writeFile(t, dir, "sweep.toml", []byte("config = \"/dev/zero\"\n"))
	out := filepath.Join(dir, "fresh")
	for _, tc := range []struct {
		name string
		args []string
		want []string // in the message: the input and the limit
	}{
		{"train -config /dev/zero", []string{"train", "-config", "/dev/zero", "-out", out}, []string{"/dev/zero", "1048576 bytes"}},
		{"sweep -config /dev/zero", []string{"sweep", "-config", "/dev/zero", "-out", out}, []string{"/dev/zero", "1048576 bytes"}},
		{"a sweep naming /dev/zero as its experiment file", []string{"sweep", "-config", sweepFile, "-out", out}, []string{"/dev/zero", "1048576 bytes"}},
		{"eval -init a link to /dev/zero", []string{"eval", "-model", model, "-init", zeroLink}, []string{"zero.png", "not a PNG"}},
		{"eval -init 300 MB of zeros named .png", []string{"eval", "-model", model, "-init", huge}, []string{"huge.png", "not a PNG"}},
		{"a target PNG of 50000x50000", []string{"train", "-config", cfg, "-out", out}, []string{"wide.png", "50000x50000", "4096"}},
		{"train: a check of size 100000", []string{"train", "-experiment", "checkerboard-small", "-out", out, "-max-memory", "1GiB",
			"-set", `checks=[{kind="generalise", size=100000, steps=20}]`}, []string{"check generalise", "100000x100000", "-max-memory is 1.00 GiB"}},
		{"check: a check over -max-memory", []string{"check", "-model", model, "-max-memory", "1MiB"}, []string{"check ", "-max-memory is 1.0 MiB"}},
		{"export -testbench past -max-output", []string{"export", "-model", model, "-o", filepath.Join(dir, "r.v"), "-testbench", filepath.Join(dir, "tb.v"),
			"-steps", "100000000", "-max-output", "100MB"}, []string{"-testbench", "tb.v", "-max-output is 95.4 MiB"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, dir)
			code, stderr, peak := limitedRun(t, tc.args...)
			if code != 1 {
				t.Fatalf("exit %d, stderr %q; want 1", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("message %q does not say %q", stderr, w)
				}
			}
			if strings.Contains(stderr, "panic") || strings.Contains(stderr, "out of memory") {
				t.Errorf("not a clean refusal: %q", stderr)
			}
			if peak > peakLimit {
				t.Errorf("peak resident memory %d MiB, over %d MiB", peak>>20, peakLimit>>20)
			}
			if after := snapshot(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("files changed: %d before, %d after", len(before), len(after))
			}
		})
	}
}

// TestCheckpointHasOneOwner: a second training naming the checkpoint of a
// running one (into another -out) is refused at start, naming the file
// and the other process, and leaves no folder; before, both trained and
// the checkpoint ended holding one run's state.
func TestCheckpointHasOneOwner(t *testing.T) {
	dir := t.TempDir()
	ck := filepath.Join(dir, "ck.json")
	first := asCommand("train", "-experiment", "checkerboard-small", "-out", filepath.Join(dir, "a"), "-checkpoint", ck, "-iterations", "1000000", "-quiet")
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		first.Process.Signal(os.Interrupt)
		first.Wait()
	}()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, ".ck.json.dlca-lock")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first training never locked its checkpoint")
		}
	}
	code, _, stderr := runCmd("train", "-experiment", "checkerboard-small", "-out", filepath.Join(dir, "b"), "-checkpoint", ck, "-iterations", "2", "-quiet")
	if code != 1 || !strings.Contains(stderr, ck) || !strings.Contains(stderr, fmt.Sprintf("process %d", first.Process.Pid)) {
		t.Fatalf("exit %d, %q; want 1 and a refusal naming %s and process %d", code, stderr, ck, first.Process.Pid)
	}
	if _, err := os.Stat(filepath.Join(dir, "b")); !os.IsNotExist(err) {
		t.Errorf("the refused run left its folder (%v)", err)
	}
}

// TestLongStepsInterruptible: SIGINT stops dlca check in the middle of a
// check of a billion steps, export in the middle of a testbench of a
// hundred million and a sweep planning 100,000 runs, with exit status 1,
// "interrupted" and no file left; before, all three ran on.
func TestLongStepsInterruptible(t *testing.T) {
	dir := t.TempDir()
	long := modelWithChecks(t, dir, "long.json", []experiments.CheckSpec{{Kind: "generalise", Size: 16, Steps: 1000000000}})
	plan := writeFile(t, dir, "plan.toml", []byte("experiment = \"checkerboard-small\"\n[grid]\nseed = {from = 1, to = 100000, step = 1}\n"))
	for _, tc := range []struct {
		name  string
		args  []string
		after time.Duration // into the long step
	}{
		{"check", []string{"check", "-model", long}, 1500 * time.Millisecond},
		{"export -testbench", []string{"export", "-model", long, "-o", filepath.Join(dir, "r.v"), "-testbench", filepath.Join(dir, "tb.v"), "-steps", "100000000"}, 1500 * time.Millisecond},
		// Planning 100,000 runs takes seconds; before, it wrote the plan.
		{"sweep planning", []string{"sweep", "-config", plan, "-out", filepath.Join(dir, "sweep"), "-emit", "slurm"}, 500 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := snapshot(t, dir)
			cmd := asCommand(tc.args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(tc.after)
			cmd.Process.Signal(os.Interrupt)
			done := make(chan error)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				t.Fatal("still running 20 s after SIGINT")
			}
			if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "interrupted") {
				t.Fatalf("exit %d, stderr %q; want 1 and interrupted", code, stderr.String())
			}
			after := snapshot(t, dir)
			delete(before, filepath.Join(dir, "r.v")) // export writes the rule before its testbench
			delete(after, filepath.Join(dir, "r.v"))
			if fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("files left: %v", keys(after))
			}
		})
	}
}

// TestExactMessages: the refusals that were weak now name what is wrong,
// and a refused run leaves no folder. Before: clip=inf and eps=inf trained
// and then failed writing model.json, lr=inf and the 1e300s named no key,
// a 20-digit height was "a string", -threshold NaN was accepted and
// -steps 9223372036854775807 gave a negative dimension.
func TestExactMessages(t *testing.T) {
	dir := t.TempDir()
	model := smallModel(t, dir)
	out := filepath.Join(dir, "fresh")
	train := func(set string) []string {
		return []string{"train", "-experiment", "checkerboard-small", "-iterations", "1", "-quiet", "-out", out, "-set", set}
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{train("clip=inf"), []string{"clip: +Inf", "finite"}},
		{train("eps=inf"), []string{"eps: +Inf", "finite"}},
		{train("lr=inf"), []string{"lr: +Inf", "at most 1000"}},
		{train("lr=1e300"), []string{"lr: 1e+300", "at most 1000"}},
		{train("weight_decay=1e300"), []string{"weight_decay: 1e+300"}},
		{train("state_penalty=1e300"), []string{"state_penalty: 1e+300"}},
		{train("height=99999999999999999999"), []string{"height=99999999999999999999", "out of range"}},
		{[]string{"eval", "-model", model, "-threshold", "NaN", "-init", filepath.Join(dir, "x.png")}, []string{"-threshold NaN", "[0, 1]"}},
		{[]string{"eval", "-model", model, "-states", filepath.Join(dir, "s.npy"), "-steps", "9223372036854775807"}, []string{"-states", "-steps 9223372036854775807"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			before := snapshot(t, dir)
			code, _, stderr := runCmd(tc.args...)
			if code != 1 {
				t.Fatalf("exit %d, %q; want 1", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("message %q does not say %q", stderr, w)
				}
			}
			if strings.Contains(stderr, "negative dimension") || strings.Contains(stderr, "unsupported value") {
				t.Errorf("the old failure: %q", stderr)
			}
			if fmt.Sprint(snapshot(t, dir)) != fmt.Sprint(before) {
				t.Error("files changed (a folder left behind?)")
			}
		})
	}
}

// TestTrainerBuildInterrupted: SIGINT while export -format html-train
// builds its WebAssembly trainer stops the go build child cleanly: exit 1,
// "interrupted" (before: "signal: killed"), no page, and nothing left in
// TMPDIR (before: the go command's work folder).
func TestTrainerBuildInterrupted(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command here to build the trainer")
	}
	dir, tmp := t.TempDir(), t.TempDir()
	page := filepath.Join(dir, "page.html")
	cmd := asCommand("export", "-format", "html-train", "-experiment", "checkerboard-small", "-o", page)
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Once the build's folder exists, the build is under way.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("the build never started")
		}
	}
	time.Sleep(300 * time.Millisecond) // into go build
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code == 0 {
		t.Skip("the build finished before the signal")
	} else if code != 1 || !strings.Contains(stderr.String(), "dlca export: interrupted") {
		t.Fatalf("exit %d, stderr %q; want 1 and interrupted", code, stderr.String())
	}
	if entries, _ := os.ReadDir(tmp); len(entries) > 0 {
		t.Errorf("TMPDIR holds %s after the interrupted build", entries[0].Name())
	}
	if _, err := os.Stat(page); !os.IsNotExist(err) {
		t.Errorf("a page was written (%v)", err)
	}
}

// TestResumeMessages: a resume that cannot go on names the flag or the
// file and what is wrong, and changes no file. Before: -rng jax was
// reported as two unrelated comment lines of the configuration, and an
// optimiser state of another kind or length did not name the file.
func TestResumeMessages(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if code, _, stderr := runCmd("train", "-experiment", "checkerboard-small", "-out", run, "-iterations", "2", "-quiet"); code != 0 {
		t.Fatalf("training: exit %d, %s", code, stderr)
	}
	ck := filepath.Join(run, "checkpoint.json")
	spoilt := func(name string, spoil func(opt map[string]any)) string {
		b, err := os.ReadFile(ck)
		if err != nil {
			t.Fatal(err)
		}
		var c map[string]any
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatal(err)
		}
		spoil(c["optimizer"].(map[string]any))
		if b, err = json.Marshal(c); err != nil {
			t.Fatal(err)
		}
		return writeFile(t, dir, name, b)
	}
	sgd := spoilt("sgd.json", func(opt map[string]any) { opt["kind"] = "sgd" })
	short := spoilt("short.json", func(opt map[string]any) {
		m := opt["buffers"].(map[string]any)["m"].([]any)
		m[0] = m[0].([]any)[1:]
	})
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"train", "-resume", ck, "-rng", "jax", "-iterations", "4"}, []string{"-rng jax", ck, "pcg"}},
		{[]string{"train", "-resume", sgd, "-out", run, "-iterations", "4"}, []string{sgd, `"sgd"`}},
		{[]string{"train", "-resume", short, "-out", run, "-iterations", "4"}, []string{short, "has 2047 values"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			before := snapshot(t, dir)
			code, _, stderr := runCmd(tc.args...)
			if code != 1 {
				t.Fatalf("exit %d, %q; want 1", code, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("message %q does not say %q", stderr, w)
				}
			}
			if fmt.Sprint(snapshot(t, dir)) != fmt.Sprint(before) {
				t.Error("files changed")
			}
		})
	}
}

// waitFor polls cond every 20 ms for up to limit, failing the test with
// what when it never holds.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, limit)
		}
	}
}

// TestSweepRecoversKilledRuns: a sweep's training killed with SIGKILL (as
// the OOM killer does) after its first checkpoint is resumed by the next
// sweep (before: retried with -out, which train refuses, for ever); and
// after kill -9 of the sweep itself its training goes on to its end (before:
// it died of SIGPIPE writing to the dead sweep), while the sweep run again
// waits for it and counts it finished.
func TestSweepRecoversKilledRuns(t *testing.T) {
	dlcaPath := dlcaWrapper(t)
	sweepFile := filepath.Join(t.TempDir(), "one.toml")
	if err := os.WriteFile(sweepFile, []byte("experiment = \"checkerboard-small\"\n[set]\niterations = 400\n[grid]\nseed = [1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// start starts the sweep into out as a subprocess and returns it
	// once its training holds the run's folder and has checkpointed,
	// with the training's process id.
	start := func(t *testing.T, out string) (*exec.Cmd, int, string) {
		cmd := asCommand("sweep", "-config", sweepFile, "-out", out, "-jobs", "1", "-dlca", dlcaPath)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		run := filepath.Join(out, "runs")
		var dir string
		var pid int
		waitFor(t, 60*time.Second, "a training holding its folder, with a checkpoint", func() bool {
			entries, _ := os.ReadDir(run)
			if len(entries) == 0 {
				return false
			}
			dir = filepath.Join(run, entries[0].Name())
			var running bool
			pid, running = runctl.Holder(dir)
			_, err := os.Stat(filepath.Join(dir, "checkpoint.json"))
			return running && err == nil
		})
		return cmd, pid, dir
	}
	t.Run("the training killed", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "sweep")
		sw, pid, dir := start(t, out)
		syscall.Kill(pid, syscall.SIGKILL)
		sw.Wait()
		if sw.ProcessState.ExitCode() == 0 {
			t.Fatal("the sweep whose training was killed exited 0")
		}
		code, _, stderr := runCmd("sweep", "-config", sweepFile, "-out", out, "-jobs", "1", "-dlca", dlcaPath)
		if code != 0 || !strings.Contains(stderr, "resuming") {
			t.Fatalf("the sweep run again: exit %d, %s; want 0, resuming the run", code, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "run.json")); err != nil {
			t.Errorf("the run did not finish: %v", err)
		}
	})
	t.Run("the sweep killed", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "sweep")
		sw, pid, dir := start(t, out)
		sw.Process.Kill() // kill -9 of the sweep alone: its training is orphaned
		sw.Wait()
		code, _, stderr := runCmd("sweep", "-config", sweepFile, "-out", out, "-jobs", "1", "-dlca", dlcaPath)
		if code != 0 || !strings.Contains(stderr, fmt.Sprintf("still trained by process %d", pid)) || !strings.Contains(stderr, "finished (by the earlier sweep's training)") {
			t.Fatalf("the sweep run again: exit %d, %s; want 0, waiting for process %d which finishes the run", code, stderr, pid)
		}
		if _, err := os.Stat(filepath.Join(dir, "run.json")); err != nil {
			t.Errorf("the run did not finish: %v", err)
		}
	})
}
