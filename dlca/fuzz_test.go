package dlca_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
)

// Fuzz targets of the two parsers that read outside input: model files and
// configs. Their seeds (testdata/*.json) run as ordinary tests; to fuzz,
// see docs/RELIABILITY.md:
//
//	go test ./dlca -run '^$' -fuzz '^FuzzRead$' -fuzztime 60s
//	go test ./dlca -run '^$' -fuzz '^FuzzConfig$' -fuzztime 60s

// addSeeds adds every testdata file whose name starts with prefix, and a
// truncated copy of each, to f's corpus.
func addSeeds(f *testing.F, prefix string) {
	paths, err := filepath.Glob(filepath.Join("testdata", prefix+"*.json"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no %s seeds in testdata (%v)", prefix, err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte{})
	f.Add([]byte("null"))
}

// runs checks that m runs: one soft step and one hard step on a 2x3 grid
// of every channel half on, with soft values in [0, 1].
func runs(t *testing.T, m *dlca.Model) {
	c := m.Config.Channels
	state := autograd.Full(autograd.Float32, 0.5, 1, 2, 3, c)
	next := m.Step(state.NoGrad(), nil)
	for i := range next.Len() {
		if v := next.At(i); !(v >= 0 && v <= 1) {
			t.Fatalf("soft step gave %v at %d", v, i)
		}
	}
	m.Circuit().Rollout(dlca.BitsOf(state), 1, dlca.HardOptions{})
}

// FuzzRead: no input makes the model-file reader panic; an error names the
// package; a file that reads is a model that runs and writes back to a
// file that reads as the same model.
func FuzzRead(f *testing.F) {
	addSeeds(f, "model-")
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := dlca.Read(bytes.NewReader(data), autograd.Float32)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "dlca: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		runs(t, m)
		var first, second bytes.Buffer
		if err := m.Write(&first); err != nil {
			t.Fatal(err)
		}
		again, err := dlca.Read(bytes.NewReader(first.Bytes()), autograd.Float32)
		if err != nil {
			t.Fatalf("a model read from the input does not read back: %v", err)
		}
		if err := again.Write(&second); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Fatal("writing, reading and writing again changed the file")
		}
	})
}

// maxFuzzGates bounds the models FuzzConfig builds: a valid config may ask
// for any size, and building a huge one tests the machine, not the code.
const maxFuzzGates = 20000

// FuzzConfig: no config JSON makes Validate or New panic; New accepts
// exactly the configs Validate accepts, and builds a model of the shapes
// the config describes, which runs.
func FuzzConfig(f *testing.F) {
	addSeeds(f, "config-")
	f.Fuzz(func(t *testing.T, data []byte) {
		var c dlca.Config
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if dec.Decode(&c) != nil {
			return
		}
		verr := c.Validate()
		if verr != nil && !strings.HasPrefix(verr.Error(), "dlca: invalid config: ") {
			t.Fatalf("error without the prefix: %v", verr)
		}
		if verr == nil && c.UpdateInputs() < 1 {
			t.Fatalf("Validate accepted a config with %d update inputs", c.UpdateInputs())
		}
		gates := 0
		if verr == nil {
			for _, n := range c.KernelLayers[1:] {
				gates += c.Kernels * n
			}
			for _, n := range c.UpdateLayers {
				gates += n
			}
			if gates > maxFuzzGates || c.UpdateInputs() > maxFuzzGates || c.Channels > 64 {
				return
			}
		}
		m, err := dlca.New(c, autograd.Float32)
		if (err == nil) != (verr == nil) {
			t.Fatalf("Validate says %v, New says %v", verr, err)
		}
		if err != nil {
			return
		}
		if len(m.Perception) != len(c.KernelLayers)-1 || len(m.Update) != len(c.UpdateLayers) || m.NumGates() != gates {
			t.Fatalf("model of %d+%d layers and %d gates for config %v", len(m.Perception), len(m.Update), m.NumGates(), c)
		}
		runs(t, m)
	})
}
