package tensorfile

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
)

// sample is a small state dict as nn.GetStateDict gives one for
// Sequential(Linear(3, 2), ReLU, BatchNorm1d(2)).
func sample(t *testing.T, dtype autograd.DType) StateDict {
	t.Helper()
	var sd StateDict
	for _, c := range []struct {
		name  string
		shape []int
	}{{"0.weight", []int{2, 3}}, {"0.bias", []int{2}}, {"2.weight", []int{2}}, {"2.bias", []int{2}},
		{"2.running_mean", []int{2}}, {"2.running_var", []int{2}}} {
		x := autograd.Zeros(dtype, c.shape...)
		for i := range x.Len() {
			x.SetAt(i, float64(len(sd))+float64(i)/4)
		}
		e, err := EntryOf(c.name, x)
		if err != nil {
			t.Fatal(err)
		}
		sd = append(sd, e)
	}
	return append(sd, Entry{Name: "2.num_batches_tracked", DType: I64, Shape: []int{}, Data: binary.LittleEndian.AppendUint64(nil, 7)})
}

// TestReadTorchViews reads tensors saved as views of shared storages: a
// transpose (strides), a row (an offset), float64 and a 0-d int64.
func TestReadTorchViews(t *testing.T) {
	b, err := os.ReadFile("../testdata/torch/views.pt")
	if err != nil {
		t.Fatal(err)
	}
	sd, err := ReadTorch(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var transposed, row []float64
	for j := range 4 { // base[i, j] = 4i + j; transposed[j, i] = base[i, j]
		for i := range 3 {
			transposed = append(transposed, float64(4*i+j))
		}
		row = append(row, float64(8+j))
	}
	want := map[string]struct {
		dtype  StoredDType
		shape  []int
		values []float64
	}{
		"transposed": {F32, []int{4, 3}, transposed},
		"row":        {F32, []int{4}, row},
		"double":     {F64, []int{5}, []float64{-0.25, -0.125, 0, 0.125, 0.25}},
		"count":      {I64, []int{}, []float64{-3}},
	}
	if len(sd) != len(want) {
		t.Fatalf("%d tensors %v, want %d", len(sd), sd.Names(), len(want))
	}
	for name, w := range want {
		e, ok := sd.Get(name)
		if !ok {
			t.Errorf("no %q", name)
			continue
		}
		if e.DType != w.dtype || !slices.Equal(e.Shape, w.shape) || !slices.Equal(e.Float64s(), w.values) {
			t.Errorf("%s = %s %v %v, want %s %v %v", name, e.DType, e.Shape, e.Float64s(), w.dtype, w.shape, w.values)
		}
	}
}

// TestTorchFileLayout checks what Go writes against torch.save's layout:
// records under archive/, stored, each one's data at a multiple of 64
// bytes, version 3, and a state dict that reads back.
func TestTorchFileLayout(t *testing.T) {
	sd := sample(t, autograd.Float64)
	var buf bytes.Buffer
	if err := WriteTorch(&buf, sd); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		off, err := f.DataOffset()
		if err != nil {
			t.Fatal(err)
		}
		if off%64 != 0 || f.Method != zip.Store {
			t.Errorf("%s: data at %d (method %d), want a multiple of 64, stored", f.Name, off, f.Method)
		}
		if f.Name == "archive/version" {
			rc, _ := f.Open()
			v, _ := io.ReadAll(rc)
			if string(v) != "3\n" {
				t.Errorf("version %q, want \"3\\n\"", v)
			}
		}
	}
	want := []string{"archive/data.pkl", "archive/byteorder"}
	for i := range sd {
		want = append(want, "archive/data/"+string(rune('0'+i)))
	}
	want = append(want, "archive/version")
	if !slices.Equal(names, want) {
		t.Errorf("records %v, want %v", names, want)
	}
	back, err := ReadTorch(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	checkSameStateDict(t, back, sd)
}

func checkSameStateDict(t *testing.T, got, want StateDict) {
	t.Helper()
	if !slices.Equal(got.Names(), want.Names()) {
		t.Fatalf("names %v, want %v", got.Names(), want.Names())
	}
	for i, e := range want {
		g := got[i]
		if g.DType != e.DType || !slices.Equal(g.Shape, e.Shape) || !bytes.Equal(g.Data, e.Data) {
			t.Errorf("%s: %s %v %v, want %s %v %v", e.Name, g.DType, g.Shape, g.Float64s(), e.DType, e.Shape, e.Float64s())
		}
	}
}

// TestSafetensorsLayout checks the header Go writes against the format's
// definition: the length, JSON of dtype/shape/offsets, padding to 8.
func TestSafetensorsLayout(t *testing.T) {
	sd := sample(t, autograd.Float32)
	var buf bytes.Buffer
	if err := WriteSafetensors(&buf, sd, map[string]string{"format": "pt"}); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	n := binary.LittleEndian.Uint64(b)
	if n%8 != 0 {
		t.Errorf("header length %d, want a multiple of 8", n)
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(b[8:8+n], &header); err != nil {
		t.Fatal(err)
	}
	var w struct {
		DType       string `json:"dtype"`
		Shape       []int  `json:"shape"`
		DataOffsets []int  `json:"data_offsets"`
	}
	if err := json.Unmarshal(header["0.bias"], &w); err != nil {
		t.Fatal(err)
	}
	// 0.weight is 6 float32 (24 bytes) first; 0.bias 2 after it.
	if w.DType != "F32" || !slices.Equal(w.Shape, []int{2}) || !slices.Equal(w.DataOffsets, []int{24, 32}) {
		t.Errorf("0.bias header %+v, want F32 [2] [24 32]", w)
	}
	if string(header["__metadata__"]) != `{"format":"pt"}` {
		t.Errorf("__metadata__ %s", header["__metadata__"])
	}
	back, meta, err := ReadSafetensors(bytes.NewReader(b))
	if err != nil || meta["format"] != "pt" {
		t.Fatal(err, meta)
	}
	checkSameStateDict(t, back, sd)
	// Damaged files: a truncated one, and one with bytes after the data.
	if _, _, err := ReadSafetensors(bytes.NewReader(b[:len(b)-1])); err == nil {
		t.Error("a truncated file read without error")
	}
	if _, _, err := ReadSafetensors(bytes.NewReader(append(slices.Clone(b), 0))); err == nil {
		t.Error("a file with trailing bytes read without error")
	}
}

// TestReadTorchRefusesOtherGlobals: a pickle that names anything but the
// tensor globals is refused, naming it, before anything runs.
func TestReadTorchRefusesOtherGlobals(t *testing.T) {
	pkl := []byte("\x80\x02cos\nsystem\nX\x04\x00\x00\x00echo\x85R.")
	var buf bytes.Buffer
	if err := writeTorchZip(&buf, []torchRecord{{"data.pkl", pkl}, {"version", []byte("3\n")}}); err != nil {
		t.Fatal(err)
	}
	_, err := ReadTorch(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err == nil || !strings.Contains(err.Error(), "os.system") {
		t.Fatalf("err = %v, want one naming os.system", err)
	}
}
