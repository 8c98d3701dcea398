package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/internal/memlimit"
)

// TestRefusalsNameRealFlags: a grid too large to simulate and a training
// run too large for memory are refused before anything is allocated (not
// with "fatal error: runtime: out of memory"), and every flag the
// refusals suggest is one of dlca-view's.
func TestRefusalsNameRealFlags(t *testing.T) {
	if _, _, err := memlimit.MemoryLimit(); err != nil {
		t.Skip("no memory limit to compare with:", err)
	}
	var usage strings.Builder
	run(context.Background(), []string{"-h"}, &usage, &usage)
	e, err := experiments.Get("checkerboard")
	if err != nil {
		t.Fatal(err)
	}
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(t.TempDir(), "model.json")
	if err := m.Save(model); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-model", model, "-size", "100000"}, "use -size "},
		{[]string{"-model", model, "-rows", "3", "-cols", "1000000000"}, "use -size "},
		{[]string{"-model", model, "-width", "100000"}, "the window must be 1 to 16384 pixels"},
		{[]string{"-train", "checkerboard", "-size", "100000", "-out", out}, "use -size "},
		{[]string{"-train", "checkerboard", "-recompute", "20", "-max-memory", "64MiB", "-out", out}, "(-recompute 1 "},
		{[]string{"-train", "checkerboard", "-recompute", "4", "-max-memory", "1MiB", "-out", out}, "raise -max-memory"},
	} {
		var stdout, stderr strings.Builder
		code := run(context.Background(), tc.args, &stdout, &stderr)
		msg := stderr.String()
		if code == 0 || !strings.Contains(msg, tc.want) {
			t.Errorf("%v: exit %d, %s%s; want a refusal suggesting %q", tc.args, code, stdout.String(), msg, tc.want)
			continue
		}
		for _, f := range regexp.MustCompile(`[ (]-[a-z-]+`).FindAllString(msg, -1) {
			if !strings.Contains(usage.String(), "  "+f[1:]+" ") {
				t.Errorf("%v: the refusal %q names %s, which dlca-view does not have", tc.args, msg, f[1:])
			}
		}
	}
}

// TestHelpWithoutDisplay runs this test binary (dlca-view's code) with -h
// and no display: the usage comes out on stdout and the exit status is 0,
// where ebiten's start would otherwise panic for want of a display.
func TestHelpWithoutDisplay(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-h")
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || !strings.Contains(stdout.String(), "-train") || !strings.Contains(stdout.String(), "-model") {
		t.Fatalf("dlca-view -h without a display: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
}

// TestHelp: -h and -help print the usage to stdout and exit 0, opening no
// window.
func TestHelp(t *testing.T) {
	for _, flag := range []string{"-h", "-help"} {
		var stdout, stderr strings.Builder
		code := run(context.Background(), []string{flag}, &stdout, &stderr)
		if code != 0 || stderr.Len() != 0 || !strings.Contains(stdout.String(), "Usage of dlca-view") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 0 and the usage on stdout", flag, code, stdout.String(), stderr.String())
		}
	}
}
