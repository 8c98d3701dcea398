package dlca

import (
	"strings"
	"testing"
)

func checkerboardConfig() Config {
	up := []int{256, 256, 256, 256, 256, 256, 256, 256, 256, 256, 128, 64, 32, 16, 8, 8}
	return Config{Height: 16, Width: 16, Channels: 8, Kernels: 16, KernelLayers: []int{9, 8, 4, 2},
		UpdateLayers: up, Seed: 23, PassThrough: 10, FireRate: 0.6}
}

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*Config)
		want   string // "" = valid
	}{
		{"paper checkerboard", func(*Config) {}, ""},
		{"game of life kernels", func(c *Config) { c.KernelLayers = []int{9, 8, 4, 2, 1}; c.UpdateLayers = []int{68, 34, 17, 9, 8} }, ""},
		{"zero channels", func(c *Config) { c.Channels = 0 }, "channel"},
		{"zero kernels", func(c *Config) { c.Kernels = 0 }, "kernel"},
		{"empty grid", func(c *Config) { c.Height = 0 }, "height and width"},
		{"bad boundary", func(c *Config) { c.Boundary = 7 }, "boundary"},
		{"kernel not starting at 9", func(c *Config) { c.KernelLayers = []int{8, 8, 4} }, "kernel_layers"},
		{"kernel second layer not 8", func(c *Config) { c.KernelLayers = []int{9, 6, 3} }, "kernel_layers"},
		{"kernel too narrow for unique wiring", func(c *Config) { c.KernelLayers = []int{9, 8, 3} }, "unique wiring"},
		{"last update layer not C", func(c *Config) { c.UpdateLayers[len(c.UpdateLayers)-1] = 4 }, "exactly channels"},
		{"update too narrow for unique wiring", func(c *Config) { c.UpdateLayers[0] = 100 }, "2*gates >= inputs"},
		{"empty update", func(c *Config) { c.UpdateLayers = nil }, "empty"},
		{"random wiring of a narrow layer", func(c *Config) { c.Wiring = WiringRandom; c.UpdateLayers[0] = 100 }, ""},
		{"random wiring of an empty layer", func(c *Config) { c.Wiring = WiringRandom; c.UpdateLayers[0] = 0 }, "at least 1 gate"},
		{"unknown wiring", func(c *Config) { c.Wiring = "unique" }, "wiring"},
		{"fire rate zero", func(c *Config) { c.FireRate = 0 }, "fire_rate"},
		{"fire rate above one", func(c *Config) { c.FireRate = 1.5 }, "fire_rate"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := checkerboardConfig()
			tc.change(&c)
			err := c.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("valid config rejected: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestConfigUpdateInputs(t *testing.T) {
	// The paper's table: 264 update inputs for the checkerboard.
	if got := checkerboardConfig().UpdateInputs(); got != 264 {
		t.Fatalf("UpdateInputs = %d, want 264", got)
	}
	m, err := New(checkerboardConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	// 16 kernels x (8+4+2) + 10x256 + 128+64+32+16+8+8 gates.
	if got, want := m.NumGates(), 16*14+2560+256; got != want {
		t.Fatalf("NumGates = %d, want %d", got, want)
	}
	if m.ActiveGates() != 0 {
		t.Fatalf("a pass-through initialised model has %d active gates, want 0", m.ActiveGates())
	}
}

// TestRandomWiring: Config.Wiring "random" draws the update layers (and the
// perception layers after the first) with gates.RandomWiring, which may
// leave inputs unread; a model file keeps it, and one of unique wiring has
// no wiring field (files written before it existed read the same).
func TestRandomWiring(t *testing.T) {
	cfg := checkerboardConfig()
	cfg.Wiring = WiringRandom
	cfg.UpdateLayers[0] = 100 // too few gates for unique wiring of 264 inputs
	m, err := New(cfg, 0)
	if err != nil {
		t.Fatal(err)
	}
	read := map[int32]bool{}
	w := m.Update[0].Wiring
	for k := range w.A {
		read[w.A[k]], read[w.B[k]] = true, true
	}
	// Petersen et al.'s draw gives 2*out distinct inputs when 2*out <= in.
	if len(read) != 200 {
		t.Fatalf("100 random gates read %d of 264 inputs, want 200", len(read))
	}
	var b strings.Builder
	if err := m.Write(&b); err != nil {
		t.Fatal(err)
	}
	back, err := Read(strings.NewReader(b.String()), 0)
	if err != nil || back.Config.Wiring != WiringRandom {
		t.Fatalf("read back: %v, wiring %q", err, back.Config.Wiring)
	}
	u, _ := New(checkerboardConfig(), 0)
	b.Reset()
	u.Write(&b)
	if strings.Contains(b.String(), `"wiring"`) {
		t.Fatal("a model of unique wiring writes a wiring field")
	}
}
