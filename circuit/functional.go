package circuit

import (
	"slices"
	"strconv"
	"strings"
)

// maxSupport is the most inputs a gate may depend on for MergeEquivalent to
// compute its function exactly (2^10 = 1024 rows of truth table).
const maxSupport = 10

// cone is what MergeEquivalent knows about one value: the inputs it depends
// on structurally (sorted; nil with big set when more than maxSupport) and
// its truth table over them, row r giving the value when input support[j]
// is bit j of r.
type cone struct {
	support []int32
	table   []bool
	big     bool
}

// coneOf returns the cone of a gate from those of its operands: the union
// of their supports, and the op applied row by row.
func coneOf(g Gate, a, b cone) cone {
	if (dependsOnA(g.Op) && a.big) || (dependsOnB(g.Op) && b.big) {
		return cone{big: true}
	}
	var sup []int32
	if dependsOnA(g.Op) {
		sup = append(sup, a.support...)
	}
	if dependsOnB(g.Op) {
		sup = append(sup, b.support...)
	}
	slices.Sort(sup)
	sup = slices.Compact(sup)
	if len(sup) > maxSupport {
		return cone{big: true}
	}
	row := func(c cone, r int) uint8 {
		// Pick c's inputs out of row r of the union support.
		i := 0
		for j, v := range c.support {
			k, _ := slices.BinarySearch(sup, v)
			i |= (r >> k & 1) << j
		}
		return bit(c.table[i])
	}
	t := make([]bool, 1<<len(sup))
	for r := range t {
		var x, y uint8
		if dependsOnA(g.Op) {
			x = row(a, r)
		}
		if dependsOnB(g.Op) {
			y = row(b, r)
		}
		t[r] = g.Op.Truth(x, y) == 1
	}
	return cone{support: sup, table: t}
}

// reduced drops from the cone the inputs its table does not actually
// depend on, so that equal functions have equal cones.
func (c cone) reduced() cone {
	var keep []int
	for j := range c.support {
		for r := range c.table {
			if r>>j&1 == 0 && c.table[r] != c.table[r|1<<j] {
				keep = append(keep, j)
				break
			}
		}
	}
	out := cone{table: make([]bool, 1<<len(keep))}
	for _, j := range keep {
		out.support = append(out.support, c.support[j])
	}
	for r := range out.table {
		full := 0 // the row of the unreduced table, other inputs 0
		for i, j := range keep {
			full |= (r >> i & 1) << j
		}
		out.table[r] = c.table[full]
	}
	return out
}

// key identifies the cone's function: its support and table.
func (c cone) key() string {
	var sb strings.Builder
	for _, v := range c.support {
		sb.WriteString(strconv.Itoa(int(v)))
		sb.WriteByte(',')
	}
	sb.WriteByte(':')
	for _, t := range c.table {
		sb.WriteByte("01"[bit(t)])
	}
	return sb.String()
}

// bit converts a truth-table entry to 0 or 1.
func bit(t bool) uint8 {
	if t {
		return 1
	}
	return 0
}

// MergeEquivalent computes the exact function of every gate that depends
// on at most maxSupport inputs (by evaluating it on every assignment of
// them) and replaces a gate whose function is a constant by a constant, one
// that equals an input by a wire, one that negates an input by a NOT gate,
// and one that equals an earlier gate's function by that gate. It finds
// what structural rules cannot, such as x AND (x OR y) = x or two different
// gate trees computing the same function.
func MergeEquivalent(nl *Netlist) *Netlist {
	cones := make([]cone, nl.NumValues())
	for i := range nl.NumInputs {
		cones[i] = cone{support: []int32{int32(i)}, table: []bool{false, true}}
	}
	for k, g := range nl.Gates {
		cones[nl.NumInputs+k] = coneOf(g, cones[g.A], cones[g.B])
	}
	seen := map[string]int32{} // function key -> new value; looked up only
	return rebuild(nl, func(b *builder, k int, g Gate, label string) int32 {
		c := cones[nl.NumInputs+k]
		if c.big {
			return b.add(g, label)
		}
		c = c.reduced()
		switch len(c.support) {
		case 0:
			return b.addConst(bit(c.table[0]), label)
		case 1:
			return b.unary(c.support[0], bit(c.table[0]), bit(c.table[1]), label)
		}
		key := c.key()
		if v, ok := seen[key]; ok {
			return v
		}
		v := b.add(g, label)
		seen[key] = v
		return v
	})
}
