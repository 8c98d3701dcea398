package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"codeberg.org/sbinet/npyio/npz"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/cmd/internal/runctl"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gates"
	"github.com/dlca/dlca/internal/jsonfile"
)

// runImport builds a model file from parameters saved elsewhere: an npz
// archive in the paper's notebook's layout (dlca export -format npz writes
// one; docs/model-format.md says how to save one from the notebook).
func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dlca import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	from := fs.String("from", "", "the form of FILE: npz (the paper's notebook's params and wires; required)")
	out := fs.String("out", "", "the model file to write (required; - for standard output)")
	force := fs.Bool("force", false, "replace an existing -out")
	height := fs.Int("height", 16, "for an npz without a config entry: the training grid's height (the model runs on any grid; this is recorded)")
	width := fs.Int("width", 16, "for an npz without a config entry: the training grid's width")
	boundary := fs.String("boundary", "zero", "for an npz without a config entry: zero or periodic")
	fireRate := fs.Float64("fire-rate", dlca.DefaultFireRate, "for an npz without a config entry: the fire rate of an asynchronous step")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: dlca import -from npz FILE -out model.json [-force] [-height H -width W -boundary B -fire-rate R]\n\nBuilds a model file (docs/model-format.md) from the arrays of an npz: what dlca export -format npz\nwrites, or the paper's notebook's params and wires saved with numpy.savez (the grid flags then\nsay what the npz does not).")
		fs.PrintDefaults()
	}
	// Flags may come after FILE too (-from npz FILE -out model.json).
	var files []string
	for rest := args; ; {
		if err := runctl.ParseFlags(fs, rest, stdout); errors.Is(err, flag.ErrHelp) {
			return err
		} else if err != nil {
			return errUsage
		}
		if fs.NArg() == 0 {
			break
		}
		files, rest = append(files, fs.Arg(0)), fs.Args()[1:]
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	switch {
	case *from == "":
		return errors.New("-from is required: the form of the file to import (npz)")
	case *from != "npz":
		return fmt.Errorf("-from %s: unknown form; dlca imports npz", *from)
	case len(files) != 1:
		return fmt.Errorf("want one file to import, got %d (%s)", len(files), strings.Join(files, " "))
	case *out == "":
		return errors.New("-out is required: the model file to write")
	}
	if err := notExisting("-out", *out, *force); err != nil {
		return err
	}
	if err := checkOutput("-out", *out, "npz", files[0]); err != nil {
		return err
	}
	b, err := circuit.ParseBoundary(*boundary)
	if err != nil {
		return fmt.Errorf("-boundary: %w", err)
	}
	grid := dlca.Config{Height: *height, Width: *width, Boundary: b, FireRate: *fireRate, PassThrough: dlca.DefaultPassThrough}
	var gridFlags []string
	for _, name := range []string{"height", "width", "boundary", "fire-rate"} {
		if given[name] {
			gridFlags = append(gridFlags, "-"+name)
		}
	}
	m, err := readNPZModel(files[0], grid, gridFlags)
	if err != nil {
		return err
	}
	if err := writeOutput(ctx, *out, m.Write); err != nil {
		return err
	}
	fmt.Fprintf(infoWriter(*out, stdout, stderr), "wrote %s (%d perception and %d update layers, %d channels, %d kernels)\n",
		*out, len(m.Perception), len(m.Update), m.Config.Channels, m.Config.Kernels)
	return nil
}

// maxNPZValues bounds one array of an imported npz: the largest layer of
// any model this project trains holds under a million logits, and a
// damaged or hostile header must not make the reader allocate gigabytes.
const maxNPZValues = 1 << 26

// readNPZModel reads the model of the npz at path. Without a config entry
// its architecture comes from the arrays' shapes and grid's other
// settings; grid flags (gridFlags, by name) with a config entry are an
// error, since the npz says them already.
func readNPZModel(path string, grid dlca.Config, gridFlags []string) (*dlca.Model, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	z, err := npz.NewReader(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: not an npz (a zip of .npy arrays): %w", path, err)
	}
	a := npzArchive{path: path, z: z}
	nets := map[string]int{}
	for _, net := range []string{"perceive", "update"} {
		for a.has(npzParams(net, nets[net])) {
			nets[net]++
		}
		if nets[net] == 0 {
			return nil, fmt.Errorf("%s: no %s: want the notebook's params[%q][i] (and wires) for each layer", path, npzParams(net, 0), net)
		}
	}
	for _, k := range z.Keys() {
		if !a.known(k, nets) {
			return nil, fmt.Errorf("%s: unknown array %q: an npz model holds %s, params/NET/i and wires/NET/i (NET perceive or update, i from 0, no gap) only", path, strings.TrimSuffix(k, ".npy"), npzConfig)
		}
	}
	file := fileModelJSON{Format: dlca.FileFormat, Version: dlca.FileVersion}
	if a.has(npzConfig) {
		if len(gridFlags) > 0 {
			return nil, fmt.Errorf("%s has a config entry, which gives the grid: leave out %s", path, strings.Join(gridFlags, ", "))
		}
		var text string
		if err := a.read(npzConfig, []int{}, &text); err != nil {
			return nil, err
		}
		var rec npzRecord
		if err := jsonfile.Decode(strings.NewReader(text), &rec); err != nil {
			return nil, fmt.Errorf("%s: its config entry: %w", path, err)
		}
		if rec.Format != npzFormat || rec.Version < 1 || rec.Version > npzVersion {
			return nil, fmt.Errorf("%s: its config entry is format %q version %d, want %q version 1 to %d", path, rec.Format, rec.Version, npzFormat, npzVersion)
		}
		file.Config, file.Experiment = rec.Config, rec.Experiment
	} else {
		if file.Config, err = a.architecture(grid, nets); err != nil {
			return nil, err
		}
	}
	c := file.Config
	in := c.UpdateInputs()
	for _, net := range []string{"perceive", "update"} {
		for i := range nets[net] {
			l := fileLayerJSON{In: in, Groups: 1}
			shape := []int{0, gates.NumOps}
			if net == "perceive" {
				if i >= len(c.KernelLayers)-1 {
					return nil, fmt.Errorf("%s: %d perception layers, but its config's kernel_layers %v has %d", path, nets[net], c.KernelLayers, len(c.KernelLayers)-1)
				}
				l.Name, l.In, l.Out, l.Groups = fmt.Sprintf("perception/%d", i), c.KernelLayers[i], c.KernelLayers[i+1], c.Kernels
				shape = []int{c.Kernels, l.Out, gates.NumOps}
			} else {
				if i >= len(c.UpdateLayers) {
					return nil, fmt.Errorf("%s: %d update layers, but its config's update_layers %v has %d", path, nets[net], c.UpdateLayers, len(c.UpdateLayers))
				}
				l.Name, l.Out = fmt.Sprintf("update/%d", i), c.UpdateLayers[i]
				shape[0] = l.Out
				in = l.Out
			}
			if err := a.readLogits(npzParams(net, i), shape, &l.Logits); err != nil {
				return nil, err
			}
			wires, err := a.readWires(npzWires(net, i), l.Out)
			if err != nil {
				return nil, err
			}
			l.A, l.B = wires[:l.Out], wires[l.Out:]
			if net == "perceive" {
				file.Perception = append(file.Perception, l)
			} else {
				file.Update = append(file.Update, l)
			}
		}
	}
	doc, err := json.Marshal(file)
	if err != nil {
		return nil, err
	}
	m, err := dlca.Read(bytes.NewReader(doc), autograd.Float32)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// fileModelJSON and fileLayerJSON are the model file's JSON
// (docs/model-format.md), which dlca.Read checks.
type fileModelJSON struct {
	Format     string          `json:"format"`
	Version    int             `json:"version"`
	Config     dlca.Config     `json:"config"`
	Experiment json.RawMessage `json:"experiment,omitempty"`
	Perception []fileLayerJSON `json:"perception"`
	Update     []fileLayerJSON `json:"update"`
}

type fileLayerJSON struct {
	Name   string    `json:"name"`
	In     int       `json:"in"`
	Out    int       `json:"out"`
	Groups int       `json:"groups"`
	A      []int32   `json:"a"`
	B      []int32   `json:"b"`
	Logits []float32 `json:"logits"`
}

// npzArchive reads the arrays of an npz, checking each one's shape and
// type before its values.
type npzArchive struct {
	path string
	z    *npz.Reader
}

// has says whether the archive holds array name.
func (a npzArchive) has(name string) bool { return slices.Contains(a.z.Keys(), name+".npy") }

// known says whether key (NAME.npy) is an array an npz model holds.
func (a npzArchive) known(key string, nets map[string]int) bool {
	name := strings.TrimSuffix(key, ".npy")
	if name == npzConfig {
		return true
	}
	for net, n := range nets {
		for i := range n {
			if name == npzParams(net, i) || name == npzWires(net, i) {
				return true
			}
		}
	}
	return false
}

// header returns array name's type (its NumPy descr, such as <f4) and
// shape, refusing an absent array and one too large to be a layer.
func (a npzArchive) header(name string) (string, []int, error) {
	if !a.has(name) {
		return "", nil, fmt.Errorf("%s: no array %s", a.path, name)
	}
	h := a.z.Header(name + ".npy")
	if h == nil {
		return "", nil, fmt.Errorf("%s: array %s: not an .npy array", a.path, name)
	}
	if h.Descr.Fortran {
		return "", nil, fmt.Errorf("%s: array %s is in Fortran order; save it in C order (numpy's default, np.ascontiguousarray)", a.path, name)
	}
	n := 1
	for _, d := range h.Descr.Shape {
		if d < 0 || d > maxNPZValues || n*d > maxNPZValues {
			return "", nil, fmt.Errorf("%s: array %s has shape %v, more values than any layer (%d)", a.path, name, h.Descr.Shape, maxNPZValues)
		}
		n *= d
	}
	return strings.Trim(h.Descr.Type, `'"`), h.Descr.Shape, nil
}

// read reads array name, whose shape must be want, into ptr.
func (a npzArchive) read(name string, want []int, ptr any) error {
	_, shape, err := a.header(name)
	if err != nil {
		return err
	}
	if !slices.Equal(shape, want) {
		return fmt.Errorf("%s: array %s has shape %v, want %v", a.path, name, shape, want)
	}
	if err := a.z.Read(name+".npy", ptr); err != nil {
		return fmt.Errorf("%s: array %s: %w", a.path, name, err)
	}
	return nil
}

// readLogits reads a layer's logits, float32 or float64 (rounded to
// float32, as a model file holds them), of shape want.
func (a npzArchive) readLogits(name string, want []int, logits *[]float32) error {
	typ, _, err := a.header(name)
	if err != nil {
		return err
	}
	switch typ {
	case "<f4":
		return a.read(name, want, logits)
	case "<f8":
		var v []float64
		if err := a.read(name, want, &v); err != nil {
			return err
		}
		*logits = make([]float32, len(v))
		for i, x := range v {
			(*logits)[i] = float32(x)
		}
		return nil
	}
	return fmt.Errorf("%s: array %s is %s; want float32 (<f4) or float64 (<f8) logits", a.path, name, typ)
}

// readWires reads a layer's wiring, int32 or int64 [2, out] (a, then b),
// as 2*out int32.
func (a npzArchive) readWires(name string, out int) ([]int32, error) {
	typ, _, err := a.header(name)
	if err != nil {
		return nil, err
	}
	want := []int{2, out}
	switch typ {
	case "<i4":
		var v []int32
		return v, a.read(name, want, &v)
	case "<i8":
		var v []int64
		if err := a.read(name, want, &v); err != nil {
			return nil, err
		}
		w := make([]int32, len(v))
		for i, x := range v {
			if x < 0 || x > 1<<30 {
				return nil, fmt.Errorf("%s: array %s: index %d out of range", a.path, name, x)
			}
			w[i] = int32(x)
		}
		return w, nil
	}
	return nil, fmt.Errorf("%s: array %s is %s; want int32 (<i4) or int64 (<i8) input indices", a.path, name, typ)
}

// architecture is the model config of an npz without a config entry: the
// kernels and layer widths from the arrays' shapes, the rest from grid.
func (a npzArchive) architecture(grid dlca.Config, nets map[string]int) (dlca.Config, error) {
	c := grid
	c.KernelLayers = []int{9}
	for i := range nets["perceive"] {
		_, shape, err := a.header(npzParams("perceive", i))
		if err != nil {
			return c, err
		}
		if len(shape) != 3 || shape[2] != gates.NumOps {
			return c, fmt.Errorf("%s: array %s has shape %v; want [kernels, gates, 16], the notebook's params['perceive'][%d]", a.path, npzParams("perceive", i), shape, i)
		}
		c.Kernels = shape[0]
		c.KernelLayers = append(c.KernelLayers, shape[1])
	}
	for i := range nets["update"] {
		_, shape, err := a.header(npzParams("update", i))
		if err != nil {
			return c, err
		}
		if len(shape) != 2 || shape[1] != gates.NumOps {
			return c, fmt.Errorf("%s: array %s has shape %v; want [gates, 16], the notebook's params['update'][%d]", a.path, npzParams("update", i), shape, i)
		}
		c.UpdateLayers = append(c.UpdateLayers, shape[0])
	}
	c.Channels = c.UpdateLayers[len(c.UpdateLayers)-1]
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("%s: the arrays' shapes make no model: %w", a.path, err)
	}
	return c, nil
}
