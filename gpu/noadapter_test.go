package gpu

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// noDriverEnv hides every Vulkan driver from the Vulkan loader.
var noDriverEnv = []string{"VK_DRIVER_FILES=/nonexistent/icd.json", "VK_ICD_FILENAMES=/nonexistent/icd.json"}

// TestNoAdapter re-runs this test binary with the Vulkan drivers hidden: Open
// must return ErrNoAdapter, GPU tests must skip, and with DLCA_REQUIRE_GPU=1
// they must fail.
func TestNoAdapter(t *testing.T) {
	if os.Getenv("DLCA_GPU_NO_DRIVER_CHILD") == "1" {
		if _, err := Open(); !errors.Is(err, ErrNoAdapter) {
			t.Fatalf("Open with no Vulkan driver: %v, want ErrNoAdapter", err)
		}
		return
	}
	testDevice(t) // nothing to hide on a machine without drivers
	for _, c := range []struct {
		name, require string
		fail          bool
		want          string
	}{
		{"skips", RequireEnv + "=", false, "skipping GPU test"},
		{"fails when required", RequireEnv + "=1", true, "requires one"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^(TestNoAdapter|TestOpen)$", "-test.v", "-test.count=1")
			cmd.Env = append(append(os.Environ(), noDriverEnv...), "DLCA_GPU_NO_DRIVER_CHILD=1", c.require)
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != c.fail {
				t.Fatalf("child failed=%v, want %v:\n%s", failed, c.fail, out)
			}
			if !strings.Contains(string(out), c.want) {
				t.Errorf("child output lacks %q:\n%s", c.want, out)
			}
		})
	}
}
