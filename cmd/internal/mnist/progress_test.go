package mnist

import (
	"bytes"
	"strings"
	"testing"
)

// TestProgressLines: off a terminal, with no interval, every step but the
// last prints a line naming the epoch, the step of the steps and a rate;
// on a terminal the line is rewritten in place and cleared at the end.
func TestProgressLines(t *testing.T) {
	var b bytes.Buffer
	p := Progress(&b, false, 128, 0)
	for step := 1; step <= 3; step++ {
		p(2, step, 3)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "epoch 2: step 1/3, ") || !strings.Contains(lines[1], "step 2/3") || !strings.Contains(lines[1], "images/s") || !strings.Contains(lines[1], "left") {
		t.Fatalf("progress off a terminal: %q", b.String())
	}
	b.Reset()
	p = Progress(&b, true, 128, 0)
	for step := 1; step <= 3; step++ {
		p(1, step, 3)
	}
	if out := b.String(); strings.Contains(out, "\n") || !strings.HasSuffix(out, "\r\x1b[K") {
		t.Fatalf("progress on a terminal: %q", out)
	}
}
