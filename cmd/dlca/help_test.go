package main

import (
	"strings"
	"testing"
)

// TestHelp: asking for help is not an error: dlca -h, --help, help and every
// command's -h and -help print the usage to stdout and exit 0; a bad flag
// still prints it to stderr and exits 2.
func TestHelp(t *testing.T) {
	lines := [][]string{{"-h"}, {"-help"}, {"--help"}, {"help"}}
	for _, c := range commands {
		lines = append(lines, []string{c.name, "-h"}, []string{c.name, "-help"})
	}
	for _, args := range lines {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := runCmd(args...)
			if code != 0 || stderr != "" || !strings.Contains(strings.ToLower(stdout), "usage") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 0 and the usage on stdout only", code, stdout, stderr)
			}
			if len(args) == 2 && !strings.Contains(stdout, "dlca "+args[0]) {
				t.Errorf("usage %q is not the one of dlca %s", stdout, args[0])
			}
		})
	}
	code, stdout, stderr := runCmd("train", "-colour", "red")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "Usage of dlca train") {
		t.Errorf("a bad flag: exit %d, stdout %q, stderr %q; want exit 2 and the usage on stderr", code, stdout, stderr)
	}
}
