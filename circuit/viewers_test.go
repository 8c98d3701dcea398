package circuit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/dlca/dlca/gates"
)

// evalDigitalJS is a small DigitalJS interpreter for the device types the
// exporter uses. It checks the document's structure on the way: every
// connector joins existing devices through ports their type has, every
// input port is driven exactly once and every device but a Lamp drives
// something (no input or gate is left unconnected).
func evalDigitalJS(t *testing.T, doc []byte, in []uint8, outputs int) []uint8 {
	t.Helper()
	var c djsCircuit
	if err := json.Unmarshal(doc, &c); err != nil {
		t.Fatal(err)
	}
	inPorts := map[string][]string{
		"Button": nil, "Constant": nil, "Lamp": {"in"}, "Not": {"in"}, "Repeater": {"in"},
		"And": {"in1", "in2"}, "Or": {"in1", "in2"}, "Xor": {"in1", "in2"},
		"Nand": {"in1", "in2"}, "Nor": {"in1", "in2"}, "Xnor": {"in1", "in2"},
	}
	driver := map[string]string{} // "device.port" -> driving device
	for _, k := range c.Connectors {
		from, ok := c.Devices[k.From.ID]
		if !ok || k.From.Port != "out" || from["type"] == "Lamp" {
			t.Fatalf("connector from %+v: no such output", k.From)
		}
		to, ok := c.Devices[k.To.ID]
		if !ok {
			t.Fatalf("connector to unknown device %q", k.To.ID)
		}
		ports, known := inPorts[to["type"].(string)]
		if !known {
			t.Fatalf("device %q has unexpected type %v", k.To.ID, to["type"])
		}
		found := false
		for _, p := range ports {
			found = found || p == k.To.Port
		}
		if !found {
			t.Fatalf("device %q (%v) has no input port %q", k.To.ID, to["type"], k.To.Port)
		}
		key := k.To.ID + "." + k.To.Port
		if _, dup := driver[key]; dup {
			t.Fatalf("%s driven twice", key)
		}
		driver[key] = k.From.ID
	}
	drives := map[string]bool{}
	for _, from := range driver {
		drives[from] = true
	}
	for id, d := range c.Devices {
		if d["type"] != "Lamp" && !drives[id] {
			t.Fatalf("device %q (%v) drives nothing", id, d["type"])
		}
		for _, p := range inPorts[d["type"].(string)] {
			if _, ok := driver[id+"."+p]; !ok {
				t.Fatalf("%s.%s is not driven", id, p)
			}
		}
	}
	memo := map[string]uint8{}
	var value func(id string) uint8
	value = func(id string) uint8 {
		if v, ok := memo[id]; ok {
			return v
		}
		d := c.Devices[id]
		arg := func(p string) uint8 { return value(driver[id+"."+p]) }
		var v uint8
		switch d["type"] {
		case "Button":
			v = in[int(d["order"].(float64))]
		case "Constant":
			v = d["constant"].(string)[0] - '0'
		case "Not":
			v = 1 - arg("in")
		case "Repeater", "Lamp":
			v = arg("in")
		case "And":
			v = arg("in1") & arg("in2")
		case "Or":
			v = arg("in1") | arg("in2")
		case "Xor":
			v = arg("in1") ^ arg("in2")
		case "Nand":
			v = 1 - arg("in1")&arg("in2")
		case "Nor":
			v = 1 - arg("in1") | arg("in2")
		case "Xnor":
			v = 1 - arg("in1") ^ arg("in2")
		}
		memo[id] = v
		return v
	}
	out := make([]uint8, outputs)
	for j := range out {
		out[j] = value(fmt.Sprintf("out%d", j))
	}
	return out
}

func TestDigitalJSMatchesEval(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 0))
	// The simplified learned checkerboard reads a few of its 72 inputs and
	// wireConstCA one of 18: the others must not appear.
	checkerboard, _ := Simplify(learned(t, "checkerboard"))
	for _, nl := range []*Netlist{LifeCircuit(), labelled(randomCA(rng, 2, 100)), randomCA(rng, 1, 30), wireConstCA(), checkerboard} {
		var buf bytes.Buffer
		if err := WriteDigitalJS(&buf, nl); err != nil {
			t.Fatal(err)
		}
		for range 300 {
			in := make([]uint8, nl.NumInputs)
			for i := range in {
				in[i] = uint8(rng.IntN(2))
			}
			if got, want := evalDigitalJS(t, buf.Bytes(), in, nl.Channels()), nl.Eval(in); !bytes.Equal(got, want) {
				t.Fatalf("inputs %v: DigitalJS document gives %v, Eval %v", in, got, want)
			}
		}
	}
}

// The DigitalJS export runs in DigitalJS itself, headless under Node,
// with the script docs/circuits.md shows (testdata/digitaljs.js), and
// gives Eval's outputs. It needs node and the digitaljs npm package where
// Node finds it (npm install digitaljs in some DIR, then
// NODE_PATH=DIR/node_modules), and is skipped otherwise.
func TestDigitalJSRunsInNode(t *testing.T) {
	script, err := os.ReadFile(filepath.Join("testdata", "digitaljs.js"))
	if err != nil {
		t.Fatal(err)
	}
	if doc, err := os.ReadFile(filepath.Join("..", "docs", "circuits.md")); err != nil || !bytes.Contains(doc, script) {
		t.Errorf("docs/circuits.md does not show testdata/digitaljs.js as it is (%v)", err)
	}
	needTool(t, "node", "nodejs")
	probe := exec.Command("node", "-e", "require.resolve('digitaljs')")
	probe.Dir = "testdata" // where the script resolves it from
	if msg, err := probe.CombinedOutput(); err != nil {
		line, _, _ := strings.Cut(string(msg), "\n")
		t.Skipf("Node cannot find the digitaljs package (npm install digitaljs in DIR, then NODE_PATH=DIR/node_modules): %s", line)
	}
	rng := rand.New(rand.NewPCG(42, 0))
	checkerboard, _ := Simplify(learned(t, "checkerboard"))
	dir := t.TempDir()
	for i, nl := range []*Netlist{checkerboard, randomCA(rng, 2, 100), wireConstCA()} {
		var buf bytes.Buffer
		if err := WriteDigitalJS(&buf, nl); err != nil {
			t.Fatal(err)
		}
		doc := filepath.Join(dir, fmt.Sprintf("rule%d.digitaljs.json", i))
		os.WriteFile(doc, buf.Bytes(), 0o644)
		args := []string{"digitaljs.js", doc}
		var want []string
		for range 64 {
			in := make([]uint8, nl.NumInputs)
			var sb strings.Builder
			for k := range in {
				in[k] = uint8(rng.IntN(2))
				sb.WriteByte('0' + in[k])
			}
			args = append(args, sb.String())
			var out strings.Builder
			for _, b := range nl.Eval(in) {
				out.WriteByte('0' + b)
			}
			want = append(want, out.String())
		}
		got := strings.Fields(run(t, "testdata", "node", args...))
		if !slices.Equal(got, want) {
			t.Fatalf("netlist %d: DigitalJS computes\n%v\nEval\n%v", i, got, want)
		}
	}
}

var (
	dotNode = regexp.MustCompile(`^\s*(\w+) \[shape=(\w+), label="([^"]*)"\];$`)
	dotEdge = regexp.MustCompile(`^\s*(\w+) -> (\w+)(?: \[label="([ab])"\])?;$`)
)

// parseDOT reads the exporter's DOT back into a netlist: gate nodes by
// their op name, operands by the a/b edge labels, outputs by the edges
// into the output nodes. Any line it does not recognise fails the test.
func parseDOT(t *testing.T, doc string, numInputs, outputs int) *Netlist {
	t.Helper()
	ops := map[string]gates.Op{}
	for o := gates.Op(0); o < gates.NumOps; o++ {
		ops[o.String()] = o
	}
	index := func(id string) int32 {
		n, err := strconv.Atoi(id[strings.IndexAny(id, "0123456789"):])
		if err != nil {
			t.Fatalf("bad node id %q", id)
		}
		if strings.HasPrefix(id, "g") {
			return int32(numInputs + n)
		}
		return int32(n)
	}
	nl := &Netlist{NumInputs: numInputs, Outputs: make([]int32, outputs)}
	declared := map[string]bool{}
	lines := strings.Split(strings.TrimSpace(doc), "\n")
	if !strings.HasPrefix(lines[0], "digraph ") || lines[len(lines)-1] != "}" {
		t.Fatalf("not a digraph:\n%s", doc)
	}
	for _, line := range lines[1 : len(lines)-1] {
		if m := dotNode.FindStringSubmatch(line); m != nil {
			declared[m[1]] = true
			if m[2] == "box" {
				op, ok := ops[m[3]]
				if !ok || index(m[1]) != int32(nl.NumValues()) {
					t.Fatalf("gate node out of order or with unknown op: %q", line)
				}
				nl.Gates = append(nl.Gates, Gate{Op: op})
			}
			continue
		}
		if m := dotEdge.FindStringSubmatch(line); m != nil {
			if !declared[m[1]] || !declared[m[2]] {
				t.Fatalf("edge between undeclared nodes: %q", line)
			}
			switch {
			case strings.HasPrefix(m[2], "out"):
				nl.Outputs[index(m[2])] = index(m[1])
			case m[3] == "a":
				nl.Gates[index(m[2])-int32(numInputs)].A = index(m[1])
			default:
				nl.Gates[index(m[2])-int32(numInputs)].B = index(m[1])
			}
			continue
		}
		if s := strings.TrimSpace(line); s == "rankdir=LR;" || s == "}" || strings.HasPrefix(s, "node [") ||
			strings.HasPrefix(s, "subgraph cluster_") || strings.HasPrefix(s, "label=") {
			continue
		}
		t.Fatalf("unexpected DOT line %q", line)
	}
	return nl
}

func TestDOTRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 0))
	// The simplified learned checkerboard reads a few of its 72 inputs and
	// wireConstCA one of 18: the others must not appear.
	checkerboard, _ := Simplify(learned(t, "checkerboard"))
	for _, nl := range []*Netlist{LifeCircuit(), labelled(randomCA(rng, 2, 100)), randomCA(rng, 1, 30), wireConstCA(), checkerboard} {
		var buf bytes.Buffer
		if err := WriteDOT(&buf, nl, "rule"); err != nil {
			t.Fatal(err)
		}
		back := parseDOT(t, buf.String(), nl.NumInputs, nl.Channels())
		mustEqual(t, "DOT round trip", nl, back)
		if nl.Labels != nil && !strings.Contains(buf.String(), "subgraph cluster_") {
			t.Error("sections are not drawn as clusters")
		}
		if _, err := exec.LookPath("dot"); err == nil {
			cmd := exec.Command("dot", "-Tsvg")
			cmd.Stdin = &buf
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("dot rejects the export: %v\n%s", err, out)
			}
		}
	}
}
