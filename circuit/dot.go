package circuit

import "io"

// WriteDOT writes the netlist as a Graphviz digraph named name, flowing left
// to right: an ellipse per input that some gate or output reads (nN cC:
// channel C of neighbour N), a box per gate labelled with its op, edges
// labelled a and b for the operands, and a double octagon per output (cC:
// the next state's channel C). Gates with section labels are grouped into
// one cluster per section. Gates that reach no output are left out.
// Render it with, for example, dot -Tsvg rule.dot -o rule.svg.
func WriteDOT(w io.Writer, nl *Netlist, name string) error {
	if err := checkExport(nl, name, "DOT"); err != nil {
		return err
	}
	nl = RemoveDead(nl)
	c := nl.Channels()
	e := &errWriter{w: w}
	id := func(v int32) string { return nl.valueName(v, "in%d", "g%d") }
	used := make([]bool, nl.NumInputs)
	for _, g := range nl.Gates {
		for _, v := range [2]int32{g.A, g.B} {
			if int(v) < nl.NumInputs {
				used[v] = true
			}
		}
	}
	for _, o := range nl.Outputs {
		if int(o) < nl.NumInputs {
			used[o] = true
		}
	}
	e.printf("digraph %s {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n", name)
	for i, u := range used {
		if u {
			e.printf("  %s [shape=ellipse, label=\"n%d c%d\"];\n", id(int32(i)), i/c, i%c)
		}
	}
	// Gates of one section go into one cluster, sections in order of first
	// appearance; unlabelled gates stay at the top level.
	var sections []string
	members := map[string][]int{} // looked up only
	for k := range nl.Gates {
		l := nl.label(k)
		if _, ok := members[l]; !ok {
			sections = append(sections, l)
		}
		members[l] = append(members[l], k)
	}
	for si, l := range sections {
		indent := "  "
		if l != "" {
			e.printf("  subgraph cluster_%d {\n    label=%q;\n", si, l)
			indent = "    "
		}
		for _, k := range members[l] {
			e.printf("%s%s [shape=box, label=\"%s\"];\n", indent, id(int32(nl.NumInputs+k)), nl.Gates[k].Op)
		}
		if l != "" {
			e.printf("  }\n")
		}
	}
	for k, g := range nl.Gates {
		gid := id(int32(nl.NumInputs + k))
		if dependsOnA(g.Op) {
			e.printf("  %s -> %s [label=\"a\"];\n", id(g.A), gid)
		}
		if dependsOnB(g.Op) {
			e.printf("  %s -> %s [label=\"b\"];\n", id(g.B), gid)
		}
	}
	for j, o := range nl.Outputs {
		e.printf("  out%d [shape=doubleoctagon, label=\"c%d\"];\n  %s -> out%d;\n", j, j, id(o), j)
	}
	e.printf("}\n")
	return e.err
}
