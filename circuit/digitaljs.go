package circuit

import (
	"encoding/json"
	"fmt"
	"io"
)

// djsPort names one port of a DigitalJS device.
type djsPort struct {
	ID   string `json:"id"`
	Port string `json:"port"`
}

type djsConnector struct {
	From djsPort `json:"from"`
	To   djsPort `json:"to"`
}

type djsCircuit struct {
	Devices     map[string]map[string]any `json:"devices"`
	Connectors  []djsConnector            `json:"connectors"`
	Subcircuits map[string]any            `json:"subcircuits"`
}

// WriteDigitalJS writes the netlist in the JSON input format of DigitalJS
// (github.com/tilk/digitaljs), the simulator the paper's article uses to
// show its circuits. Inputs become Buttons named nNcC (channel C of
// neighbour N), outputs Lamps named cC (the next state's channel C), and
// each gate the device its op is drawn with: And, Or, Xor, Nand, Nor,
// Xnor, Not, Repeater (a pass-through) or Constant, with Not devices in
// front of inverted operands (A AND NOT B is an And reading b through a
// Not). Devices are named gK after gate K, and gK_nota / gK_notb for those
// inverters. Gates that reach no output are left out, and so are inputs
// no device reads (a simplified rule often reads only a few of its 9*C),
// so that every device present has all its ports connected.
func WriteDigitalJS(w io.Writer, nl *Netlist) error {
	if err := nl.Validate(); err != nil {
		return fmt.Errorf("circuit: DigitalJS export: %w", err)
	}
	if !nl.IsCA() {
		return fmt.Errorf("circuit: DigitalJS export needs a cellular-automaton netlist (9*C inputs for C outputs), got %d inputs and %d outputs", nl.NumInputs, len(nl.Outputs))
	}
	nl = RemoveDead(nl)
	c := nl.Channels()
	d := djsCircuit{Devices: map[string]map[string]any{}, Connectors: []djsConnector{}, Subcircuits: map[string]any{}}
	id := func(v int32) string { return nl.valueName(v, "in%d", "g%d") }
	connect := func(from, to, port string) {
		d.Connectors = append(d.Connectors, djsConnector{From: djsPort{from, "out"}, To: djsPort{to, port}})
	}
	for k, g := range nl.Gates {
		gid := id(int32(nl.NumInputs + k))
		f := formOf(g.Op)
		dev := map[string]any{"label": fmt.Sprintf("%s %s", gid, g.Op)}
		if l := nl.label(k); l != "" {
			dev["label"] = fmt.Sprintf("%s %s (%s)", gid, g.Op, l)
		}
		d.Devices[gid] = dev
		// literal wires operand v into port, through a Not device if inverted.
		literal := func(v int32, not bool, suffix, port string) {
			if !not {
				connect(id(v), gid, port)
				return
			}
			nid := gid + suffix
			d.Devices[nid] = map[string]any{"type": "Not", "bits": 1}
			connect(id(v), nid, "in")
			connect(nid, gid, port)
		}
		switch f.Kind {
		case formConst:
			dev["type"], dev["constant"] = "Constant", fmt.Sprint(f.Value)
		case formA, formB:
			dev["type"], dev["bits"] = "Repeater", 1
			if f.NotOut {
				dev["type"] = "Not"
			}
			src := g.A
			if f.Kind == formB {
				src = g.B
			}
			connect(id(src), gid, "in")
		case formXor:
			dev["type"], dev["bits"] = "Xor", 1
			if f.NotOut {
				dev["type"] = "Xnor"
			}
			connect(id(g.A), gid, "in1")
			connect(id(g.B), gid, "in2")
		case formAnd, formOr:
			dev["bits"] = 1
			both := f.NotA && f.NotB // NOT a AND NOT b is NOR; NOT a OR NOT b is NAND
			switch {
			case f.Kind == formAnd && both:
				dev["type"] = "Nor"
			case f.Kind == formAnd:
				dev["type"] = "And"
			case both:
				dev["type"] = "Nand"
			default:
				dev["type"] = "Or"
			}
			literal(g.A, f.NotA && !both, "_nota", "in1")
			literal(g.B, f.NotB && !both, "_notb", "in2")
		}
	}
	for j, o := range nl.Outputs {
		name := fmt.Sprintf("c%d", j)
		oid := fmt.Sprintf("out%d", j)
		d.Devices[oid] = map[string]any{"type": "Lamp", "label": name, "net": name, "order": nl.NumInputs + j, "bits": 1}
		connect(id(o), oid, "in")
	}
	// Only now is it known which inputs are read: an op that ignores an
	// operand (a constant, a pass-through) connects nothing to it.
	read := make(map[string]bool)
	for _, con := range d.Connectors {
		read[con.From.ID] = true
	}
	for i := 0; i < nl.NumInputs; i++ {
		if !read[id(int32(i))] {
			continue
		}
		name := fmt.Sprintf("n%dc%d", i/c, i%c)
		d.Devices[id(int32(i))] = map[string]any{"type": "Button", "label": name, "net": name, "order": i, "bits": 1}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(d)
}
