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
		if err := Write(&buf, nl, f, Options{Name: "life", Height: 8, Width: 8, Boundary: Periodic}); err != nil || buf.Len() == 0 {
			t.Fatalf("%v: wrote %d bytes, %v", f, buf.Len(), err)
		}
	}
	if _, err := ParseFormat("vhdl"); err == nil || !strings.Contains(err.Error(), "verilog") {
		t.Errorf("ParseFormat(vhdl) error %v should list the formats", err)
	}
}

// jsonOf returns nl as the JSON WriteJSON writes.
func jsonOf(t *testing.T, nl *Netlist) string {
	t.Helper()
	var buf bytes.Buffer
	if err := nl.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.String()
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
	for _, tc := range []struct{ name, in, want string }{
		{"input out of range", `{"num_inputs": 2, "gates": [{"op": 1, "a": 0, "b": 5}], "outputs": [2]}`, "circuit"},
		{"unknown field", `{"inputs": 2}`, "unknown field"},
		{"truncated", `[`, "truncated"},
		{"byte-order mark", "\xEF\xBB\xBF" + jsonOf(t, nl), "byte-order mark; save the file without it"},
		{"trailing data", jsonOf(t, nl) + "{}", "data after its JSON value"},
	} {
		if _, err := ReadNetlist(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ReadNetlist error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}
