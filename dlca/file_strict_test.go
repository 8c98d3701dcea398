package dlca

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/gates"
	"github.com/dlca/dlca/internal/jsonfile/jsonfiletest"
)

// TestReadExactJSON: a model file's field names match docs/model-format.md
// exactly, each once, and every required field is there; encoding/json
// would have read each of these files (the one without "boundary" as a
// model of the zero boundary).
func TestReadExactJSON(t *testing.T) {
	good, err := os.ReadFile("testdata/model-tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	edit := func(from, to string) []byte {
		t.Helper()
		if !bytes.Contains(good, []byte(from)) {
			t.Fatalf("the model has no %q", from)
		}
		return bytes.Replace(good, []byte(from), []byte(to), 1)
	}
	type testCase struct {
		name string
		file []byte
		want string
	}
	cases := []testCase{
		{"a name in another case", edit(`"boundary"`, `"Boundary"`), `unknown field "Boundary" in /config`},
		{"a layer name in another case", edit(`"in"`, `"In"`), `unknown field "In" in /perception/0`},
		{"a duplicate field", edit(`"version": 1,`, `"version": 1, "version": 1,`), `field appears twice: "version"`},
		{"a duplicate config field", edit(`"boundary": "periodic",`, `"boundary": "periodic", "boundary": "zero",`), `field appears twice: "boundary" in /config`},
		{"trailing data", append(bytes.Clone(good), "x"...), "data after its JSON value"},
	}
	for _, path := range []string{"format", "version", "config", "perception", "update",
		"config/height", "config/width", "config/channels", "config/boundary", "config/kernels",
		"config/kernel_layers", "config/update_layers", "config/fire_rate",
		"perception/0/in", "perception/1/out", "perception/2/groups", "perception/0/a", "perception/0/b",
		"perception/0/logits", "update/2/logits"} {
		name := path[strings.LastIndex(path, "/")+1:]
		cases = append(cases, testCase{"without " + path, jsonfiletest.Without(t, good, path), `missing field "` + name + `"`})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tc.file), autograd.Float32)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	// The informative fields are optional.
	for _, path := range []string{"perception/0/name", "update/1/name", "config/seed", "config/pass_through"} {
		if _, err := Read(bytes.NewReader(jsonfiletest.Without(t, good, path)), autograd.Float32); err != nil {
			t.Errorf("without %s: %v", path, err)
		}
	}
}

// TestModelFilesRead: the model files this project wrote (testdata) read
// under the strict rules.
func TestModelFilesRead(t *testing.T) {
	for _, name := range []string{"testdata/model-tiny.json", "testdata/model-tiny-compact.json"} {
		if _, err := Load(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestLogitsAreFloat32: a model file's logits are float32 and a gate's op is
// the argmax over the float32 values, the lowest op on a tie
// (docs/model-format.md). Logits 1 (op A) and 1.00000001 (op XOR) are both
// 1 as float32, so the gate is A; a reader that kept them as float64 would
// make it XOR.
func TestLogitsAreFloat32(t *testing.T) {
	good, err := os.ReadFile("testdata/model-tiny.json")
	if err != nil {
		t.Fatal(err)
	}
	file := jsonfiletest.Set(t, good, "update/0/logits/3", json.Number("1"))
	file = jsonfiletest.Set(t, file, "update/0/logits/6", json.Number("1.00000001"))
	for _, dtype := range []autograd.DType{autograd.Float32, autograd.Float64} {
		m, err := Read(bytes.NewReader(file), dtype)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.Update[0].Logits.At(6); got != 1 {
			t.Errorf("%v model: logit 1.00000001 read as %v, want float32 1", dtype, got)
		}
		if op := m.Update[0].HardOps()[0]; op != gates.Op(3) {
			t.Errorf("%v model: update gate 0 is op %d, want 3 (A: tied with XOR as float32, lowest wins)", dtype, op)
		}
	}
	var dm docModel
	if err := json.Unmarshal(file, &dm); err != nil {
		t.Fatal(err)
	}
	if op := docOp(dm.Update[0].Logits, dm.Update[0].Out, 0, 0); op != 6 {
		t.Errorf("a float64 reader makes update gate 0 op %d; the test needs logits that differ in float64 (XOR, 6)", op)
	}
}
