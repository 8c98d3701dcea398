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
		// By default the checkerboard recomputes step by step (about 20
		// MiB); keeping every step (-recompute 20) needs about 220.
		{[]string{"-max-memory", "16MiB"}, "raise -max-memory"},
		{[]string{"-recompute", "20", "-max-memory", "64MiB"}, "(-recompute 4"},
		{[]string{"-recompute", "4", "-max-memory", "1MiB"}, "raise -max-memory"},
		{[]string{"-recompute", "10", "-max-memory", "64MiB"}, "(-recompute 4"},
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
