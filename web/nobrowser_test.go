package web

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestNoBrowser re-runs a page test with an empty PATH, so that no browser
// can be found: it must skip, and with DLCA_REQUIRE_BROWSER=1 fail with a
// message that names the package to install.
func TestNoBrowser(t *testing.T) {
	for _, c := range []struct {
		name, require string
		fail          bool
		want          []string
	}{
		{"skips", RequireBrowserEnv + "=", false, []string{"skipping browser test", "chromium"}},
		{"fails when required", RequireBrowserEnv + "=1", true, []string{"no browser for the page tests", "requires one", "chromium", "scripts/deps"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestScreenshotMatchesPainter$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "PATH=", c.require)
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != c.fail {
				t.Fatalf("child failed=%v, want %v:\n%s", failed, c.fail, out)
			}
			for _, w := range c.want {
				if !strings.Contains(string(out), w) {
					t.Errorf("child output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
