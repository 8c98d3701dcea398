package bptt_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dlca/dlca/bptt"
)

// TestResumeOldOptimizerState: a checkpoint written before Adam's step
// counts were per parameter (one count, no param_steps) still resumes, and
// bit-identically, since every layer has a gradient at every iteration.
func TestResumeOldOptimizerState(t *testing.T) {
	setup, run := asyncRun(t, 4)
	dir := t.TempDir()
	_, want := trainFrom(t, setup, run, filepath.Join(dir, "whole.ckpt"), nil, 0)
	path := filepath.Join(dir, "run.ckpt")
	trainFrom(t, setup, run, path, nil, 2)
	ck, err := bptt.LoadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if ck.Optimizer.Steps != 2 || len(ck.Optimizer.ParamSteps) == 0 || ck.Optimizer.ParamSteps[0] != 2 {
		t.Fatalf("optimiser steps %d, per parameter %v; want 2 each", ck.Optimizer.Steps, ck.Optimizer.ParamSteps)
	}
	ck.Optimizer.ParamSteps = nil // the old format
	_, got := trainFrom(t, setup, run, filepath.Join(dir, "old.ckpt"), ck, 0)
	sameLogits(t, got, want)
}

// TestBadParamSteps: a negative per-parameter step count is refused on
// load, naming the field.
func TestBadParamSteps(t *testing.T) {
	good := writeCheckpoint(t, tinySetup(t))
	from := []byte(`"param_steps":[`)
	if !bytes.Contains(good, from) {
		t.Fatalf("the checkpoint has no %q", from)
	}
	path := filepath.Join(t.TempDir(), "bad.ckpt")
	if err := os.WriteFile(path, bytes.Replace(good, from, []byte(`"param_steps":[-1,`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := bptt.LoadCheckpoint(path); err == nil || !strings.Contains(err.Error(), "optimizer.param_steps[0] is -1") {
		t.Fatalf("error %v, want one naming optimizer.param_steps[0]", err)
	}
}

// TestOldCheckpointFileResumes: a checkpoint file written before
// per-parameter step counts (testdata, version 1, "steps":2) resumes on the
// CPU engine, every layer at step 2.
func TestOldCheckpointFileResumes(t *testing.T) {
	ck, err := bptt.LoadCheckpoint("testdata/checkpoint-tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	if ck.Optimizer.ParamSteps != nil || ck.Optimizer.Steps != 2 {
		t.Fatalf("the fixture is not in the old format: steps %d, per parameter %v", ck.Optimizer.Steps, ck.Optimizer.ParamSteps)
	}
	setup, run := asyncRun(t, 4)
	setup.Model = ck.Model
	eng, err := bptt.NewCPU(setup)
	if err != nil {
		t.Fatal(err)
	}
	if err := ck.Resume(eng, &run); err != nil {
		t.Fatal(err)
	}
	s, _ := eng.OptimizerState()
	if len(s.ParamSteps) != len(ck.Model.Params()) || slices.ContainsFunc(s.ParamSteps, func(n int) bool { return n != 2 }) {
		t.Fatalf("per-parameter steps after resuming %v, want 2 for each of %d layers", s.ParamSteps, len(ck.Model.Params()))
	}
}
