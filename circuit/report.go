package circuit

import (
	"fmt"
	"strings"

	"github.com/dlca/dlca/gates"
)

// OpCounts counts gates by op in one section of a netlist.
type OpCounts struct {
	Section string // "" for unlabelled gates
	Ops     [gates.NumOps]int
	Total   int
}

// CountGates counts the netlist's gates by op, per section in order of
// first appearance, followed by a row for the whole netlist named "all".
func CountGates(nl *Netlist) []OpCounts {
	var rows []OpCounts
	index := map[string]int{} // looked up only
	all := OpCounts{Section: "all"}
	for k, g := range nl.Gates {
		l := nl.label(k)
		i, ok := index[l]
		if !ok {
			i = len(rows)
			index[l] = i
			rows = append(rows, OpCounts{Section: l})
		}
		rows[i].Ops[g.Op]++
		rows[i].Total++
		all.Ops[g.Op]++
		all.Total++
	}
	if len(rows) == 1 && rows[0].Section == "" {
		rows = nil // unlabelled netlist: the "all" row says it all
	}
	return append(rows, all)
}

// PassResult is the gate count after one run of one pass.
type PassResult struct {
	Pass  string
	Gates int
}

// Report says what Simplify did.
type Report struct {
	Before, After []OpCounts
	Passes        []PassResult
}

// String formats the report as a table: one row per section, before and
// after, with the count of every op that occurs.
func (r Report) String() string {
	var used [gates.NumOps]bool
	for _, rows := range [][]OpCounts{r.Before, r.After} {
		for _, c := range rows {
			for o, n := range c.Ops {
				used[o] = used[o] || n > 0
			}
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-12s %-6s %6s", "section", "when", "total")
	for o := gates.Op(0); o < gates.NumOps; o++ {
		if used[o] {
			fmt.Fprintf(&sb, " %s", o)
		}
	}
	sb.WriteByte('\n')
	write := func(when string, c OpCounts) {
		name := c.Section
		if name == "" {
			name = "(none)"
		}
		fmt.Fprintf(&sb, "%-12s %-6s %6d", name, when, c.Total)
		for o := gates.Op(0); o < gates.NumOps; o++ {
			if used[o] {
				fmt.Fprintf(&sb, " %*d", len(o.String()), c.Ops[o])
			}
		}
		sb.WriteByte('\n')
	}
	for _, c := range r.Before {
		write("before", c)
		for _, a := range r.After {
			if a.Section == c.Section {
				write("after", a)
			}
		}
	}
	return sb.String()
}
