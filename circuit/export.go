package circuit

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/dlca/dlca/gates"
)

// identifier matches names valid as C functions and Verilog modules.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkExport validates what every exporter needs: a name usable as an
// identifier in the target languages and a well-formed CA netlist.
func checkExport(nl *Netlist, name, format string) error {
	if !identifier.MatchString(name) {
		return fmt.Errorf("circuit: %s export: name %q is not an identifier (use letters, digits and _, not starting with a digit)", format, name)
	}
	if err := nl.Validate(); err != nil {
		return fmt.Errorf("circuit: %s export: %w", format, err)
	}
	if !nl.IsCA() {
		return fmt.Errorf("circuit: %s export needs a cellular-automaton netlist (9*C inputs for C outputs), got %d inputs and %d outputs", format, nl.NumInputs, len(nl.Outputs))
	}
	return nil
}

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

// neighbourName describes neighbour n of the 3x3 neighbourhood.
var neighbourName = [9]string{"north-west", "north", "north-east", "west", "centre", "east", "south-west", "south", "south-east"}

// WriteFileAtomic writes a file through write, into a temporary file in the
// same directory renamed into place, so a reader never sees half a file.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("circuit: cannot write %s: %w", path, err)
	}
	defer os.Remove(f.Name()) // fails harmlessly once renamed
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("circuit: cannot write %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("circuit: cannot write %s: %w", path, err)
	}
	return nil
}

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
