package circuit

import (
	"bytes"
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
		var buf bytes.Buffer
		if err := Write(&buf, nl, f, "life"); err != nil || buf.Len() == 0 {
			t.Fatalf("%v: wrote %d bytes, %v", f, buf.Len(), err)
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
	if !nl.Equal(back) {
		t.Error("netlist changed through JSON")
	}
	for _, bad := range []string{`{"num_inputs": 2, "gates": [{"op": 1, "a": 0, "b": 5}], "outputs": [2]}`, `{"inputs": 2}`, `[`} {
		if _, err := ReadNetlist(strings.NewReader(bad)); err == nil {
			t.Errorf("ReadNetlist accepted %s", bad)
		}
	}
}
