package dlca

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/gates"
	"github.com/dlca/dlca/internal/jsonfile"
	"github.com/dlca/dlca/internal/safefile"
)

// FileFormat and FileVersion identify model files; see docs/model-format.md.
const (
	FileFormat  = "dlca-model"
	FileVersion = 1
)

// fileModel is the JSON form of a model file.
type fileModel struct {
	Format     string          `json:"format"`
	Version    int             `json:"version"`
	Config     Config          `json:"config"`
	Experiment json.RawMessage `json:"experiment,omitempty"`
	Perception []fileLayer     `json:"perception"`
	Update     []fileLayer     `json:"update"`
}

type fileLayer struct {
	Name   string    `json:"name"`
	In     int       `json:"in"`
	Out    int       `json:"out"`
	Groups int       `json:"groups"`
	A      []int32   `json:"a"`
	B      []int32   `json:"b"`
	Logits []float32 `json:"logits"` // [groups][out][16], flattened
}

// Write writes the model as a model file (JSON) to w.
func (m *Model) Write(w io.Writer) error {
	f := fileModel{Format: FileFormat, Version: FileVersion, Config: m.Config, Experiment: m.Experiment}
	conv := func(l *gates.Layer) fileLayer {
		return fileLayer{Name: l.Name, In: l.In, Out: l.Out, Groups: l.Groups, A: l.Wiring.A, B: l.Wiring.B, Logits: float32s(l.Logits)}
	}
	for _, l := range m.Perception {
		f.Perception = append(f.Perception, conv(l))
	}
	for _, l := range m.Update {
		f.Update = append(f.Update, conv(l))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(f)
}

// Save writes the model file to path with safefile.Write: atomically
// (temporary file, fsync, rename) for a regular file, so a reader never
// sees a partial file and a crash leaves the old one intact; straight
// through for a device or pipe; never over a directory.
func (m *Model) Save(path string) error {
	return safefile.Write(path, m.Write)
}

// Load reads a model file into a float32 model whose logits require a
// gradient (so it can be trained further).
func Load(path string) (*Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dlca: cannot open model file: %w", err)
	}
	defer f.Close()
	m, err := Read(f, autograd.Float32)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Read decodes a model file from r into a model of the given dtype. Every
// shape is checked against the config, so a file that decodes is a model
// that runs.
func Read(r io.Reader, dtype autograd.DType) (*Model, error) {
	var f fileModel
	if err := jsonfile.Decode(r, &f); err != nil {
		switch {
		case errors.Is(err, jsonfile.ErrEmpty):
			return nil, errors.New("dlca: empty model file")
		case errors.Is(err, jsonfile.ErrTruncated):
			return nil, errors.New("dlca: model file is truncated (unexpected end of JSON); re-save it")
		case errors.Is(err, jsonfile.ErrBOM), errors.Is(err, jsonfile.ErrTrailing):
			return nil, fmt.Errorf("dlca: model file: %w", err)
		}
		return nil, fmt.Errorf("dlca: model file is not valid JSON of the %s format: %w", FileFormat, err)
	}
	switch {
	case f.Format != FileFormat:
		return nil, fmt.Errorf("dlca: not a model file: format is %q, want %q", f.Format, FileFormat)
	case f.Version > FileVersion:
		return nil, fmt.Errorf("dlca: model file version %d is newer than this program understands (%d); use a newer dlca", f.Version, FileVersion)
	case f.Version < 1:
		return nil, fmt.Errorf("dlca: model file version %d is invalid (want 1..%d)", f.Version, FileVersion)
	}
	if err := f.Config.Validate(); err != nil {
		return nil, err
	}
	cfg := f.Config
	m := &Model{Config: cfg, Experiment: f.Experiment}
	if want := len(cfg.KernelLayers) - 1; len(f.Perception) != want {
		return nil, fmt.Errorf("dlca: model file has %d perception layers, config kernel_layers %v needs %d", len(f.Perception), cfg.KernelLayers, want)
	}
	if want := len(cfg.UpdateLayers); len(f.Update) != want {
		return nil, fmt.Errorf("dlca: model file has %d update layers, config update_layers %v needs %d", len(f.Update), cfg.UpdateLayers, want)
	}
	for i, fl := range f.Perception {
		l, err := fl.layer(cfg.KernelLayers[i], cfg.KernelLayers[i+1], cfg.Kernels, dtype)
		if err != nil {
			return nil, fmt.Errorf("dlca: perception layer %d: %w", i, err)
		}
		m.Perception = append(m.Perception, l)
	}
	in := cfg.UpdateInputs()
	for i, fl := range f.Update {
		l, err := fl.layer(in, cfg.UpdateLayers[i], 1, dtype)
		if err != nil {
			return nil, fmt.Errorf("dlca: update layer %d: %w", i, err)
		}
		m.Update = append(m.Update, l)
		in = cfg.UpdateLayers[i]
	}
	return m, nil
}

// layer checks a file layer against the shape the config gives it and builds
// the gates.Layer.
func (fl fileLayer) layer(in, out, groups int, dtype autograd.DType) (*gates.Layer, error) {
	if fl.In != in || fl.Out != out || fl.Groups != groups {
		return nil, fmt.Errorf("in/out/groups %d/%d/%d, the config needs %d/%d/%d", fl.In, fl.Out, fl.Groups, in, out, groups)
	}
	w := gates.Wiring{A: fl.A, B: fl.B}
	if len(fl.A) != out || len(fl.B) != out {
		return nil, fmt.Errorf("wiring has %d a and %d b indices, want %d each", len(fl.A), len(fl.B), out)
	}
	if err := w.Check(in); err != nil {
		return nil, err
	}
	if want := groups * out * gates.NumOps; len(fl.Logits) != want {
		return nil, fmt.Errorf("%d logits, want groups*out*16 = %d", len(fl.Logits), want)
	}
	logits := autograd.Zeros(dtype, groups, out, gates.NumOps)
	for i, v := range fl.Logits {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return nil, fmt.Errorf("logit %d is %v; a model file holds finite logits only", i, v)
		}
		logits.SetAt(i, float64(v))
	}
	logits.SetRequiresGrad(true)
	return &gates.Layer{Name: fl.Name, In: in, Out: out, Groups: groups, Wiring: w, Logits: logits}, nil
}

// float32s returns t's values rounded to float32: model files hold float32
// logits whatever the model's dtype.
func float32s(t *autograd.Tensor) []float32 {
	out := make([]float32, t.Len())
	for i := range out {
		out[i] = float32(t.At(i))
	}
	return out
}
