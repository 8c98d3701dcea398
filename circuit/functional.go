package circuit

import (
	"slices"
	"strconv"
	"strings"

	"github.com/dlca/dlca/gates"
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
	t := make([]bool, 1<<len(sup))
	for r := range t {
		var x, y uint8
		if dependsOnA(g.Op) {
			x = bit(a.at(sup, r))
		}
		if dependsOnB(g.Op) {
			y = bit(b.at(sup, r))
		}
		t[r] = g.Op.Truth(x, y) == 1
	}
	return cone{support: sup, table: t}
}

// at returns the cone's value at row r of a truth table over sup, a sorted
// superset of its support.
func (c cone) at(sup []int32, r int) bool {
	i := 0
	for j, v := range c.support {
		k, _ := slices.BinarySearch(sup, v)
		i |= (r >> k & 1) << j
	}
	return c.table[i]
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
// one that equals an earlier gate's function by that gate, and one that
// negates it by a NOT of it. It finds
// what structural rules cannot, such as x AND (x OR y) = x or two different
// gate trees computing the same function. Gates of up to
// MaxExhaustiveInputs inputs it merges after simulation and a proof
// (simmerge.go).
func MergeEquivalent(nl *Netlist) *Netlist {
	cones := conesOf(nl)
	seen := map[string]int32{} // function key -> new value; looked up only
	sim := newSimMerger(nl)
	newOf := make([]int32, nl.NumValues()) // new value of each old gate
	return rebuild(nl, func(b *builder, k int, g Gate, label string) int32 {
		c := cones[nl.NumInputs+k]
		if c.big {
			v := int32(nl.NumInputs + k)
			u, neg, ok := sim.match(v)
			switch {
			case !ok:
				newOf[v] = b.add(g, label)
			case neg:
				newOf[v] = b.add(Gate{Op: gates.NotA, A: newOf[u], B: newOf[u]}, label)
			default:
				newOf[v] = newOf[u]
			}
			return newOf[v]
		}
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
		if v, ok := seen[c.complement().key()]; ok {
			// NOT of an earlier gate: FoldInverters can then push the NOT
			// into the readers, and this gate's own cone can go.
			return b.add(Gate{Op: gates.NotA, A: v, B: v}, label)
		}
		v := b.add(g, label)
		seen[key] = v
		return v
	})
}

// complement returns the cone of the negated function.
func (c cone) complement() cone {
	t := make([]bool, len(c.table))
	for r, v := range c.table {
		t[r] = !v
	}
	return cone{support: c.support, table: t}
}

// conesOf returns the reduced cone of every value of the netlist.
func conesOf(nl *Netlist) []cone {
	cones := make([]cone, nl.NumValues())
	for i := range nl.NumInputs {
		cones[i] = cone{support: []int32{int32(i)}, table: []bool{false, true}}
	}
	for k, g := range nl.Gates {
		cones[nl.NumInputs+k] = coneOf(g, cones[g.A], cones[g.B])
	}
	for i, c := range cones {
		if !c.big {
			cones[i] = c.reduced()
		}
	}
	return cones
}

// maxResubSupport is the most inputs a gate's function may depend on for
// Resubstitute to search for a replacement (2^8 = 256 rows).
const maxResubSupport = 8

// Resubstitute replaces a gate by a single new gate over two earlier values
// when that computes the same function (exactly, over the at most
// maxResubSupport inputs the function depends on), so that the gates
// between those values and it can go. Candidates are tried inputs first,
// then gates in order, so the replacement reads values as early as
// possible; the first op that matches is taken.
func Resubstitute(nl *Netlist) *Netlist {
	cones := conesOf(nl)
	newOf := make([]int32, nl.NumValues()) // new value of each old one
	for i := range nl.NumInputs {
		newOf[i] = int32(i)
	}
	return rebuild(nl, func(b *builder, k int, g Gate, label string) int32 {
		v := int32(-1)
		if c := cones[nl.NumInputs+k]; !c.big && len(c.support) >= 2 && len(c.support) <= maxResubSupport {
			v = resubstitute(b, c, cones[:nl.NumInputs+k], newOf, g, label)
		}
		if v < 0 {
			v = b.add(g, label)
		}
		newOf[nl.NumInputs+k] = v
		return v
	})
}

// resubstitute looks for op(x, y) = target among the earlier values whose
// function depends only on target's inputs, and adds it; it returns -1 if
// there is none or it would read the operands g already reads.
func resubstitute(b *builder, target cone, earlier []cone, newOf []int32, g Gate, label string) int32 {
	rows := 1 << len(target.support)
	words := (rows + 63) / 64
	valid := ^uint64(0)
	if rows < 64 {
		valid = 1<<rows - 1
	}
	expand := func(c cone) []uint64 {
		t := make([]uint64, words)
		for r := range rows {
			if c.at(target.support, r) {
				t[r/64] |= 1 << (r % 64)
			}
		}
		return t
	}
	want := expand(target)
	var cands [][]uint64
	var vals []int32
	seen := map[string]bool{} // looked up only
	for j, c := range earlier {
		if c.big || len(c.support) == 0 || newOf[j] < 0 || !subset(c.support, target.support) {
			continue
		}
		if key := c.key(); !seen[key] {
			seen[key] = true
			cands = append(cands, expand(c))
			vals = append(vals, newOf[j])
		}
	}
	for i := range cands {
		for j := range i {
			for o := gates.Op(0); o < gates.NumOps; o++ {
				if !dependsOnA(o) || !dependsOnB(o) || !matches(o, cands[j], cands[i], want, valid) {
					continue
				}
				if (vals[j] == g.A && vals[i] == g.B) || (vals[j] == g.B && vals[i] == g.A) {
					return -1 // g already is this gate
				}
				return b.add(Gate{Op: o, A: vals[j], B: vals[i]}, label)
			}
		}
	}
	return -1
}

// matches reports whether o(a, b) = want on every valid row.
func matches(o gates.Op, a, b, want []uint64, valid uint64) bool {
	for w := range want {
		if (o.Word(a[w], b[w])^want[w])&valid != 0 {
			return false
		}
	}
	return true
}

// subset reports whether the sorted set a is contained in the sorted set b.
func subset(a, b []int32) bool {
	for _, v := range a {
		if _, ok := slices.BinarySearch(b, v); !ok {
			return false
		}
	}
	return true
}
