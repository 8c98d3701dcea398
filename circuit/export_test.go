package circuit

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteEveryFormat(t *testing.T) {
	nl := labelled(LifeCircuit())
	for f := Verilog; f <= JSON; f++ {
		got, err := ParseFormat(f.String())
		if err != nil || got != f {
			t.Fatalf("ParseFormat(%q) = %v, %v", f.String(), got, err)
		}
		path := filepath.Join(t.TempDir(), "life"+f.Ext())
		if err := WriteFileAtomic(path, func(w io.Writer) error { return Write(w, nl, f, "life") }); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) == 0 {
			t.Fatalf("%v: wrote %d bytes, %v", f, len(data), err)
		}
		if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
			t.Errorf("%v: %d files left in the directory, want only the result", f, len(entries))
		}
	}
	if _, err := ParseFormat("vhdl"); err == nil || !strings.Contains(err.Error(), "verilog") {
		t.Errorf("ParseFormat(vhdl) error %v should list the formats", err)
	}
}

func TestNetlistJSONRoundTrip(t *testing.T) {
	nl := labelled(LifeCircuit())
	var buf bytes.Buffer
	if err := nl.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadNetlist(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !equalNetlists(nl, back) {
		t.Error("netlist changed through JSON")
	}
	for _, bad := range []string{`{"num_inputs": 2, "gates": [{"op": 1, "a": 0, "b": 5}], "outputs": [2]}`, `{"inputs": 2}`, `[`} {
		if _, err := ReadNetlist(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadNetlist accepted %s", bad)
		}
	}
}
