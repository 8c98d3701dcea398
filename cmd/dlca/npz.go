package main

import (
	"archive/zip"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"codeberg.org/sbinet/npyio/npy"

	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/gates"
	"github.com/dlca/dlca/internal/state"
)

// The npz form of a model (dlca export -format npz, dlca import -from npz):
// a NumPy .npz archive holding the paper's notebook's parameters, layer by
// layer under the notebook's names (its params and wires dictionaries),
// and this project's configuration as JSON. docs/model-format.md describes
// it.
const (
	npzFormat  = "dlca-npz"
	npzVersion = 1
	npzConfig  = "config" // the entry of the configuration (npzRecord), a string
)

// npzRecord is the JSON of an npz's config entry: the model file's config
// and recorded experiment, and the notebook's hyperparams dictionary of the
// same architecture (informative: what the notebook's init_diff_logic_ca
// takes to build these shapes).
type npzRecord struct {
	Format      string          `json:"format"`
	Version     int             `json:"version"`
	Config      dlca.Config     `json:"config"`
	Experiment  json.RawMessage `json:"experiment,omitempty"`
	Hyperparams notebookParams  `json:"hyperparams"`
}

// notebookParams is the notebook's hyperparams dictionary: the update
// network's layers (its input width first) and the perception's kernels
// and layers, with the connection kind of each layer.
type notebookParams struct {
	Update struct {
		Layers      []int    `json:"layers"`
		Connections []string `json:"connections"`
	} `json:"update"`
	Perceive struct {
		Kernels     int      `json:"n_kernels"`
		Layers      []int    `json:"layers"`
		Connections []string `json:"connections"`
	} `json:"perceive"`
}

// npzParams and npzWires name layer i of network net ("perceive" or
// "update") in the archive, as the notebook's params[net][i] and
// wires[net][i].
func npzParams(net string, i int) string { return fmt.Sprintf("params/%s/%d", net, i) }
func npzWires(net string, i int) string  { return fmt.Sprintf("wires/%s/%d", net, i) }

// hyperparamsOf is the notebook's hyperparams of the architecture c.
func hyperparamsOf(c dlca.Config) notebookParams {
	var h notebookParams
	conn := "unique"
	if c.Wiring == dlca.WiringRandom {
		conn = "random"
	}
	h.Perceive.Kernels = c.Kernels
	h.Perceive.Layers = c.KernelLayers
	for i := range len(c.KernelLayers) - 1 {
		kind := conn
		if i == 0 {
			kind = "first_kernel" // the Moore wiring of the 9 neighbours
		}
		h.Perceive.Connections = append(h.Perceive.Connections, kind)
	}
	h.Update.Layers = append([]int{c.UpdateInputs()}, c.UpdateLayers...)
	for range c.UpdateLayers {
		h.Update.Connections = append(h.Update.Connections, conn)
	}
	return h
}

// writeNPZ writes model m as an npz archive to w: for each perception
// layer i, params/perceive/i, float32 [kernels, out, 16], and
// wires/perceive/i, int32 [2, out] (a then b); for each update layer,
// params/update/i, float32 [out, 16], and wires/update/i; and config.
func writeNPZ(w io.Writer, m *dlca.Model) error {
	zw := zip.NewWriter(w)
	rec := npzRecord{Format: npzFormat, Version: npzVersion, Config: m.Config, Experiment: m.Experiment, Hyperparams: hyperparamsOf(m.Config)}
	text, err := json.MarshalIndent(rec, "", " ")
	if err != nil {
		return err
	}
	entry, err := zw.Create(npzConfig + ".npy")
	if err != nil {
		return err
	}
	if err := npy.Write(entry, string(text)); err != nil {
		return fmt.Errorf("npz config: %w", err)
	}
	for _, net := range []struct {
		name   string
		layers []*gates.Layer
	}{{"perceive", m.Perception}, {"update", m.Update}} {
		for i, l := range net.layers {
			shape := []int{l.Groups, l.Out, gates.NumOps}
			if net.name == "update" {
				shape = shape[1:]
			}
			if err := writeNPYEntry(zw, npzParams(net.name, i), state.Float32, shape, func(nw *state.NPYWriter) error {
				return nw.WriteFloat32(float32s(l))
			}); err != nil {
				return err
			}
			if err := writeNPYEntry(zw, npzWires(net.name, i), state.Int32, []int{2, l.Out}, func(nw *state.NPYWriter) error {
				if err := nw.WriteInt32(l.Wiring.A); err != nil {
					return err
				}
				return nw.WriteInt32(l.Wiring.B)
			}); err != nil {
				return err
			}
		}
	}
	return zw.Close()
}

// writeNPYEntry writes one array of the archive: NAME.npy of dtype and
// shape, whose values write writes.
func writeNPYEntry(zw *zip.Writer, name string, dtype state.DType, shape []int, write func(*state.NPYWriter) error) error {
	entry, err := zw.Create(name + ".npy")
	if err != nil {
		return err
	}
	nw, err := state.NewNPYWriter(entry, dtype, shape...)
	if err != nil {
		return err
	}
	if err := write(nw); err != nil {
		return fmt.Errorf("npz %s: %w", name, err)
	}
	return nw.Close()
}

// float32s are layer l's logits as the model file holds them: float32,
// [group][gate][op].
func float32s(l *gates.Layer) []float32 {
	out := make([]float32, l.Logits.Len())
	for i := range out {
		out[i] = float32(l.Logits.At(i))
	}
	return out
}

// exportNPZ writes the model file model as an npz archive to out,
// reporting on info.
func exportNPZ(ctx context.Context, model, out string, info io.Writer) error {
	m, err := dlca.Load(model)
	if err != nil {
		return err
	}
	if err := writeOutput(ctx, out, func(w io.Writer) error { return writeNPZ(w, m) }); err != nil {
		return err
	}
	fmt.Fprintf(info, "wrote %s: params and wires of %d perception and %d update layers, and the config (docs/model-format.md)\n", out, len(m.Perception), len(m.Update))
	return nil
}
