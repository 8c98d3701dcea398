package circuit

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/dlca/dlca/gates"
)

// Format is a file format the netlist can be written in.
type Format uint8

// The export formats.
const (
	Verilog   Format = iota // WriteVerilog
	C                       // WriteC
	DigitalJS               // WriteDigitalJS
	DOT                     // WriteDOT
	JSON                    // Netlist.WriteJSON
)

var formatNames = [...]string{"verilog", "c", "digitaljs", "dot", "json"}
var formatExts = [...]string{".v", ".c", ".digitaljs.json", ".dot", ".netlist.json"}

func (f Format) String() string { return formatNames[f] }

// Ext returns the usual file name extension of the format, such as ".v".
func (f Format) Ext() string { return formatExts[f] }

// ParseFormat returns the format named s (verilog, c, digitaljs, dot or
// json).
func ParseFormat(s string) (Format, error) {
	for f, n := range formatNames {
		if n == s {
			return Format(f), nil
		}
	}
	return 0, fmt.Errorf("circuit: unknown export format %q (want one of %s)", s, strings.Join(formatNames[:], ", "))
}

// Options say what an export calls the circuit and which grid the rule was
// made for. dlca.Model.Config holds the grid of a trained model.
type Options struct {
	// Name names the Verilog modules, the C functions and macros and the
	// DOT graph: an identifier, and no keyword of Verilog or C.
	Name string
	// Height, Width and Boundary are the grid the rule was trained on. The
	// Verilog grid module takes them as its default parameters and the C
	// header defines them, so that the rule runs as it was trained.
	Height, Width int
	Boundary      Boundary
}

// Write writes the netlist in format f (for C, the source; WriteCHeader
// writes its header).
func Write(w io.Writer, nl *Netlist, f Format, o Options) error {
	switch f {
	case Verilog:
		return WriteVerilog(w, nl, o)
	case C:
		return WriteC(w, nl, o)
	case DigitalJS:
		return WriteDigitalJS(w, nl)
	case DOT:
		return WriteDOT(w, nl, o.Name)
	default:
		if err := nl.Validate(); err != nil {
			return err
		}
		return nl.WriteJSON(w)
	}
}

// identifier matches names valid as C functions and Verilog modules.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reserved holds the keywords of Verilog-2005 and C11, which cannot name a
// module or function. One set serves every format, so that a name that
// exports to one language exports to all.
var reserved = func() map[string]bool {
	words := strings.Fields(`
		always and assign automatic begin buf bufif0 bufif1 case casex casez cell cmos config
		deassign default defparam design disable edge else end endcase endconfig endfunction
		endgenerate endmodule endprimitive endspecify endtable endtask event for force forever
		fork function generate genvar highz0 highz1 if ifnone incdir include initial inout input
		instance integer join large liblist library localparam macromodule medium module nand
		negedge nmos nor noshowcancelled not notif0 notif1 or output parameter pmos posedge
		primitive pull0 pull1 pulldown pullup pulsestyle_ondetect pulsestyle_onevent rcmos real
		realtime reg release repeat rnmos rpmos rtran rtranif0 rtranif1 scalared showcancelled
		signed small specify specparam strong0 strong1 supply0 supply1 table task time tran
		tranif0 tranif1 tri tri0 tri1 triand trior trireg unsigned use uwire vectored wait wand
		weak0 weak1 while wire wor xnor xor
		auto break char const continue do double enum extern float goto inline int long register
		restrict return short sizeof static struct switch typedef union void volatile
		_Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert _Thread_local`)
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}()

// checkGridExport validates what the Verilog and C exports need: what
// checkExport does, a grid of at least one cell and a known boundary.
func checkGridExport(nl *Netlist, o Options, format string) error {
	if err := checkExport(nl, o.Name, format); err != nil {
		return err
	}
	if o.Height < 1 || o.Width < 1 {
		return fmt.Errorf("circuit: %s export: grid %dx%d: set Options.Height and Width to the grid the rule was trained on (at least 1x1)", format, o.Height, o.Width)
	}
	if o.Boundary > Periodic {
		return fmt.Errorf("circuit: %s export: unknown %v (want Zero or Periodic)", format, o.Boundary)
	}
	return nil
}

// describe says in words which grid the rule was trained on, for the
// exports' header comments; newline continues the comment on a new line.
func (o Options) describe(newline string) string {
	edge := "cells beyond the edges read as 0"
	if o.Boundary == Periodic {
		edge = "the grid wrapped around into a torus"
	}
	return fmt.Sprintf("trained on a %dx%d grid with the %v boundary%s(%s)", o.Height, o.Width, o.Boundary, newline, edge)
}

// checkExport validates what every exporter needs: a name usable as an
// identifier in the target languages and a well-formed CA netlist.
func checkExport(nl *Netlist, name, format string) error {
	if !identifier.MatchString(name) {
		return fmt.Errorf("circuit: %s export: name %q is not an identifier (use letters, digits and _, not starting with a digit)", format, name)
	}
	if reserved[name] {
		return fmt.Errorf("circuit: %s export: name %q is a reserved word of Verilog or C; choose another, such as %q", format, name, name+"_rule")
	}
	if err := nl.Validate(); err != nil {
		return fmt.Errorf("circuit: %s export: %w", format, err)
	}
	if !nl.IsCA() {
		return fmt.Errorf("circuit: %s export needs a cellular-automaton netlist (9*C inputs for C outputs), got %d inputs and %d outputs", format, nl.NumInputs, len(nl.Outputs))
	}
	return nil
}

// OpExpr returns op o applied to the operand expressions a and b in C
// syntax (& | ^ ~, also valid JavaScript on 32-bit integers), as the C and
// Verilog exports spell it: for code generators outside this package.
func OpExpr(o gates.Op, a, b string) string { return expr(o, a, b) }

// expr writes the op applied to the operand expressions a and b, from
// gates.Op.Expr (C syntax, which Verilog shares).
func expr(o gates.Op, a, b string) string {
	var sb strings.Builder
	for _, r := range o.Expr() {
		switch r {
		case 'a':
			sb.WriteString(a)
		case 'b':
			sb.WriteString(b)
		default:
			sb.WriteRune(r)
		}
	}
	return sb.String()
}

// valueName names value v in an export: the input format applied to v for
// an input, the gate format applied to k for gate k.
func (nl *Netlist) valueName(v int32, input, gate string) string {
	if int(v) < nl.NumInputs {
		return fmt.Sprintf(input, v)
	}
	return fmt.Sprintf(gate, int(v)-nl.NumInputs)
}

// neighbourName describes neighbour n of the 3x3 neighbourhood.
var neighbourName = [9]string{"north-west", "north", "north-east", "west", "centre", "east", "south-west", "south", "south-east"}

// errWriter remembers the first write error so exporters can write freely
// and check once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}

// Generated is the line every exported source file carries, so that a
// command can tell a file an earlier export wrote from one of the user's.
const Generated = "Generated by github.com/dlca/dlca/circuit."
