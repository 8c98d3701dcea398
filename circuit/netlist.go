package circuit

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/dlca/dlca/gates"
	"github.com/dlca/dlca/internal/jsonfile"
)

// Gate is one two-input gate of a Netlist. A and B are value indices: an
// input below NumInputs, else the output of gate index-NumInputs.
type Gate struct {
	Op gates.Op `json:"op"`
	A  int32    `json:"a"`
	B  int32    `json:"b"`
}

// Netlist is a combinational circuit, in the cellular-automaton case one
// cell's update rule (see the package documentation for the numbering).
//
// Its JSON form (WriteJSON, ReadNetlist) is {"num_inputs": N, "gates":
// [{"op": 6, "a": 0, "b": 4}, ...], "outputs": [...], "labels": [...]},
// ops numbered as in gates.Op. dlca.Model.Netlist extracts a trained
// model's netlist, its gates labelled "perception" and "update".
type Netlist struct {
	NumInputs int     `json:"num_inputs"`
	Gates     []Gate  `json:"gates"`
	Outputs   []int32 `json:"outputs"`
	// Labels optionally names the section each gate belongs to, such as
	// "perception" or "update": nil, or one label per gate.
	Labels []string `json:"labels,omitempty"`
}

// NumValues returns the number of values: inputs followed by gate outputs.
func (nl *Netlist) NumValues() int { return nl.NumInputs + len(nl.Gates) }

// Channels returns the number of cell channels C of a cellular-automaton
// netlist (its number of outputs).
func (nl *Netlist) Channels() int { return len(nl.Outputs) }

// Validate reports whether the netlist is well formed: at least one input,
// every operand naming an input or an earlier gate, every op one of the 16,
// every output naming a value, and Labels nil or one per gate.
func (nl *Netlist) Validate() error {
	if nl.NumInputs < 1 {
		return fmt.Errorf("circuit: netlist has %d inputs, need at least 1", nl.NumInputs)
	}
	for k, g := range nl.Gates {
		if g.Op >= gates.NumOps {
			return fmt.Errorf("circuit: gate %d has invalid op %d", k, g.Op)
		}
		limit := int32(nl.NumInputs + k)
		if g.A < 0 || g.A >= limit || g.B < 0 || g.B >= limit {
			return fmt.Errorf("circuit: gate %d reads values %d and %d, want each in [0, %d) (inputs and earlier gates)", k, g.A, g.B, limit)
		}
	}
	for i, o := range nl.Outputs {
		if o < 0 || int(o) >= nl.NumValues() {
			return fmt.Errorf("circuit: output %d names value %d, want one in [0, %d)", i, o, nl.NumValues())
		}
	}
	if nl.Labels != nil && len(nl.Labels) != len(nl.Gates) {
		return fmt.Errorf("circuit: %d labels for %d gates, want one per gate or none", len(nl.Labels), len(nl.Gates))
	}
	return nil
}

// IsCA reports whether the netlist has the shape of a cellular-automaton
// rule: 9*C inputs for its C outputs.
func (nl *Netlist) IsCA() bool {
	return len(nl.Outputs) > 0 && nl.NumInputs == 9*len(nl.Outputs)
}

// mustValidate panics, naming op, if the netlist is malformed.
func (nl *Netlist) mustValidate(op string) {
	if err := nl.Validate(); err != nil {
		panic(fmt.Sprintf("%v (in %s)", err, op))
	}
}

// mustCA panics, naming op, unless the netlist is a valid CA rule.
func (nl *Netlist) mustCA(op string) {
	nl.mustValidate(op)
	if !nl.IsCA() {
		panic(fmt.Sprintf("circuit: %s needs a cellular-automaton netlist (9*C inputs for C outputs), got %d inputs and %d outputs", op, nl.NumInputs, len(nl.Outputs)))
	}
}

// label returns gate k's section label, or "" when the netlist has none.
func (nl *Netlist) label(k int) string {
	if nl.Labels == nil {
		return ""
	}
	return nl.Labels[k]
}

// Clone returns a deep copy of the netlist.
func (nl *Netlist) Clone() *Netlist {
	c := &Netlist{
		NumInputs: nl.NumInputs,
		Gates:     append([]Gate(nil), nl.Gates...),
		Outputs:   append([]int32(nil), nl.Outputs...),
	}
	if nl.Labels != nil {
		c.Labels = append([]string(nil), nl.Labels...)
	}
	return c
}

// Equal reports whether two netlists are identical: same inputs, gates,
// outputs and labels (not merely equivalent; see Equivalent for that).
func (nl *Netlist) Equal(o *Netlist) bool {
	return nl.NumInputs == o.NumInputs && slices.Equal(nl.Gates, o.Gates) &&
		slices.Equal(nl.Outputs, o.Outputs) && slices.Equal(nl.Labels, o.Labels)
}

// Eval evaluates the netlist on one input vector of bits (each 0 or 1),
// gate by gate through gates.Op.Truth: the slow, readable reference that
// every fast path is tested against. It panics if len(in) != NumInputs.
func (nl *Netlist) Eval(in []uint8) []uint8 {
	if len(in) != nl.NumInputs {
		panic(fmt.Sprintf("circuit: Eval got %d input bits, want %d", len(in), nl.NumInputs))
	}
	v := make([]uint8, nl.NumValues())
	copy(v, in)
	for k, g := range nl.Gates {
		v[nl.NumInputs+k] = g.Op.Truth(v[g.A], v[g.B])
	}
	out := make([]uint8, len(nl.Outputs))
	for i, o := range nl.Outputs {
		out[i] = v[o]
	}
	return out
}

// WriteJSON writes the netlist as JSON (see Netlist).
func (nl *Netlist) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(nl)
}

// ReadNetlist reads a netlist written by WriteJSON and checks that it is
// well formed.
func ReadNetlist(r io.Reader) (*Netlist, error) {
	var nl Netlist
	if err := jsonfile.Decode(r, &nl); err != nil {
		return nil, fmt.Errorf("circuit: reading a netlist: %w (want JSON with num_inputs, gates, outputs)", err)
	}
	if err := nl.Validate(); err != nil {
		return nil, err
	}
	return &nl, nil
}
