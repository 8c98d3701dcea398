package dlca

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	m := tinyModel(t, tinyConfig(circuit.Periodic), 1)
	path := filepath.Join(t.TempDir(), "model.json")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Config.String() != m.Config.String() {
		t.Fatalf("config %v, want %v", got.Config, m.Config)
	}
	for i, p := range m.Params() {
		q := got.Params()[i]
		for j := range p.Len() {
			if float32(p.At(j)) != float32(q.At(j)) {
				t.Fatalf("layer %d logit %d: %v, want %v", i, j, q.At(j), float32(p.At(j)))
			}
		}
	}
	a, b := m.Netlist(), got.Netlist()
	if len(a.Gates) != len(b.Gates) || !equalInt32(a.Outputs, b.Outputs) {
		t.Fatalf("netlist changed by the round trip: %d gates %v, want %d gates %v", len(b.Gates), b.Outputs, len(a.Gates), a.Outputs)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries after Save, want only the model (no temporary file left)", len(entries))
	}
}

func equalInt32(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestReadRejectsBadFiles(t *testing.T) {
	var buf bytes.Buffer
	if err := tinyModel(t, tinyConfig(circuit.Zero), 1).Write(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	for _, tc := range []struct {
		name, file, want string
	}{
		{"empty", "", "empty model file"},
		{"truncated", good[:len(good)/2], "truncated"},
		{"byte-order mark", "\xEF\xBB\xBF" + good, "starts with a UTF-8 byte-order mark; save the file without it"},
		{"trailing data", good + "{}", "data after its JSON value"},
		{"two models", good + good, "data after its JSON value"},
		{"malformed", "{\"format\": dlca}", "not valid JSON"},
		{"not an object", "[1, 2]", "not valid JSON"},
		{"unknown field", strings.Replace(good, `"version"`, `"colour": 1, "version"`, 1), "unknown field"},
		{"wrong format", strings.Replace(good, FileFormat, "something-else", 1), "not a model file"},
		{"newer version", strings.Replace(good, `"version": 1`, `"version": 2`, 1), "newer"},
		{"version zero", strings.Replace(good, `"version": 1`, `"version": 0`, 1), "invalid"},
		{"invalid config", strings.Replace(good, `"channels": 2`, `"channels": 0`, 1), "channel"},
		{"groups mismatch", strings.Replace(good, `"groups": 2`, `"groups": 3`, 1), "groups"},
		{"wiring out of range", strings.Replace(good, `"b": [`, `"b": [99,`, 1), "wiring"},
		{"too few logits", mutate(t, good, func(f *fileModel) { f.Update[0].Logits = f.Update[0].Logits[1:] }), "logits"},
		{"missing layer", mutate(t, good, func(f *fileModel) { f.Update = f.Update[1:] }), "update layers"},
		{"layer size mismatch", mutate(t, good, func(f *fileModel) { f.Perception[1].Out = 3 }), "in/out/groups"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.file), autograd.Float32)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.json"))
	if err == nil || !strings.Contains(err.Error(), "cannot open") {
		t.Fatalf("error %v, want cannot open", err)
	}
}

// mutate decodes a model file, lets change edit it and encodes it again.
func mutate(t *testing.T, file string, change func(*fileModel)) string {
	var f fileModel
	if err := json.Unmarshal([]byte(file), &f); err != nil {
		t.Fatal(err)
	}
	change(&f)
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSaveIntoMissingDirectory(t *testing.T) {
	m := tinyModel(t, tinyConfig(circuit.Zero), 1)
	err := m.Save(filepath.Join(t.TempDir(), "no", "such", "dir", "model.json"))
	if err == nil || !strings.Contains(err.Error(), "cannot write") {
		t.Fatalf("error %v, want cannot write", err)
	}
}
