package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestTrainRefusalNamesRealFlags: every flag that dlca train's memory
// refusals suggest is one of its flags.
func TestTrainRefusalNamesRealFlags(t *testing.T) {
	_, usage, _ := runCmd("train", "-h") // the usage goes to stdout
	out := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		// By default the checkerboard recomputes step by step (about 18
		// MiB); keeping every step (-recompute 20) needs about 143.
		{[]string{"-max-memory", "16MiB"}, "raise -max-memory"},
		{[]string{"-recompute", "20", "-max-memory", "64MiB"}, "(-recompute 1 "},
		{[]string{"-recompute", "4", "-max-memory", "1MiB"}, "raise -max-memory"},
		{[]string{"-recompute", "10", "-max-memory", "64MiB"}, "(-recompute 1 "},
	} {
		code, _, msg := runCmd(append([]string{"train", "-experiment", "checkerboard", "-iterations", "1", "-out", out}, tc.args...)...)
		if code != 1 || !strings.Contains(msg, tc.want) {
			t.Errorf("%v: exit %d, %s; want a refusal suggesting %q", tc.args, code, msg, tc.want)
			continue
		}
		flags := regexp.MustCompile(`[ (]-[a-z-]+`).FindAllString(msg, -1)
		if len(flags) == 0 {
			t.Errorf("%v: no flag in %q", tc.args, msg)
		}
		for _, f := range flags {
			if !strings.Contains(usage, "  "+f[1:]+" ") {
				t.Errorf("%v: the refusal %q names %s, which dlca train does not have", tc.args, msg, f[1:])
			}
		}
	}
}

// TestTrainRefusalCountsTheStatePenalty: with the state penalty a run keeps
// every step's activations whatever -recompute says, so the memory check
// counts them (the checkerboard: about 220 MiB, where recomputing step by
// step it needs about 20) and suggests no -recompute, which would not help.
func TestTrainRefusalCountsTheStatePenalty(t *testing.T) {
	out := t.TempDir()
	base := []string{"train", "-experiment", "checkerboard", "-iterations", "1", "-out", out, "-max-memory", "64MiB"}
	if code, _, msg := runCmd(append(base, "-set", "state_penalty=0.01", "-set", "state_penalty_from=1")...); code != 1 ||
		!strings.Contains(msg, "with the state penalty, which keeps every step's activations") || strings.Contains(msg, "-recompute") {
		t.Errorf("with the penalty: exit %d, %s; want a refusal counting every step, suggesting no -recompute", code, msg)
	}
	if code, _, msg := runCmd(base...); code != 0 {
		t.Errorf("without the penalty the same run fits in 64 MiB: exit %d, %s", code, msg)
	}
}

// TestTrainRefusesAHugeGridBeforeMakingItsTarget: a grid of 100,000 x
// 100,000 cells is refused by the memory check with a clear message. The
// lizard's target for it (160 GB) used to be drawn before the check and
// ended the process, out of memory.
func TestTrainRefusesAHugeGridBeforeMakingItsTarget(t *testing.T) {
	code, _, msg := runCmd("train", "-experiment", "lizard", "-set", "height=100000", "-set", "width=100000", "-out", t.TempDir(), "-max-memory", "1GiB")
	if code != 1 || !strings.Contains(msg, "training needs about") || !strings.Contains(msg, "-max-memory is 1.00 GiB") {
		t.Errorf("exit %d, %s; want the memory check's refusal", code, msg)
	}
}
