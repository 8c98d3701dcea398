// Command gen finds a smallest circuit of two-input gates for every Boolean
// function of four inputs and writes one per NPN class as Go source (the
// table of package smallest):
//
//	go run ./gen -o table.go
//
// It works on normal functions, those that are 0 when every input is 0:
// every circuit can be rewritten, gate count unchanged, into one whose
// gates all compute normal functions (negate each gate that does not and
// fold the negation into its readers), and five ops then suffice: AND,
// A AND NOT B, NOT A AND B, XOR and OR. A function's circuit is stored as
// the list of the functions of its gates, in order, so that combining two
// circuits shares every gate they have in common.
//
// The search goes by cost. Level L combines every pair of functions whose
// circuits are known, one of them of cost L-1 and the other of cost at
// most L-1, with each op, and keeps for each result the smallest union of
// the two circuits plus the new gate. A result of cost L after level L is
// final: later levels combine a function of cost at least L and can only
// give L+1 or more. The sizes it finds match Knuth's exact costs (see the
// package's tests), so the search is exact.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"io"
	"log"
	"slices"
	"time"

	"github.com/dlca/dlca/circuit/internal/smallest"
	"github.com/dlca/dlca/gates"
	"github.com/dlca/dlca/internal/safefile"
)

// normalOps keep normal functions normal and, with negations folded into
// readers, stand for all 16.
var normalOps = []gates.Op{gates.And, gates.AAndNotB, gates.NotAAndB, gates.Xor, gates.Or}

// node is one gate of a stored circuit: the function it computes and how,
// operand i < 4 being input i and 4+k the circuit's node k.
type node struct {
	f    smallest.TT
	op   gates.Op
	a, b uint8
}

// search holds the best circuit known for every normal function.
type search struct {
	circ  [1 << 16][]node
	cost  [1 << 16]int8 // -1: none known yet
	final [1 << 16]bool
}

func newSearch() *search {
	s := &search{}
	for f := range s.cost {
		s.cost[f] = -1
	}
	s.cost[0], s.final[0] = 0, true
	for _, v := range smallest.Vars {
		s.cost[v], s.final[v] = 0, true
	}
	return s
}

// operand returns the index by which a circuit refers to g: an input, or
// its last node.
func operand(g smallest.TT, circ []node) uint8 {
	if i := slices.Index(smallest.Vars[:], g); i >= 0 {
		return uint8(i)
	}
	return uint8(4 + len(circ) - 1)
}

// combine returns the circuit of op(g, h): g's nodes, those of h's that g
// does not already compute, and the new gate.
func (s *search) combine(o gates.Op, g, h smallest.TT) []node {
	cg, ch := s.circ[g], s.circ[h]
	out := make([]node, len(cg), len(cg)+len(ch)+1)
	copy(out, cg)
	idx := make([]uint8, 4+len(ch)) // h's operand -> out's
	for i := range 4 {
		idx[i] = uint8(i)
	}
	for k, n := range ch {
		if j := slices.IndexFunc(out, func(m node) bool { return m.f == n.f }); j >= 0 {
			idx[4+k] = uint8(4 + j)
			continue
		}
		out = append(out, node{f: n.f, op: n.op, a: idx[n.a], b: idx[n.b]})
		idx[4+k] = uint8(4 + len(out) - 1)
	}
	a, b := operand(g, cg), idx[operand(h, ch)]
	return append(out, node{f: apply(o, g, h), op: o, a: a, b: b})
}

// sharedSize returns the size of combine's result without building it.
func (s *search) sharedSize(g, h smallest.TT) int {
	cg, n := s.circ[g], len(s.circ[g])+1
	for _, m := range s.circ[h] {
		if !slices.ContainsFunc(cg, func(x node) bool { return x.f == m.f }) {
			n++
		}
	}
	return n
}

func apply(o gates.Op, a, b smallest.TT) smallest.TT {
	return smallest.TT(o.Word(uint64(a), uint64(b)))
}

// run searches level by level until every normal function is final.
func (s *search) run() {
	byCost := [][]smallest.TT{{smallest.Vars[0], smallest.Vars[1], smallest.Vars[2], smallest.Vars[3]}}
	var known []smallest.TT // every final function but the constant, by cost
	known = append(known, byCost[0]...)
	for done := 5; done < 1<<15; {
		level := len(byCost)
		for _, h := range byCost[level-1] {
			for _, g := range known {
				if g == h {
					break // pairs within the level once
				}
				lb := int8(max(s.cost[g], s.cost[h]) + 1)
				for _, o := range normalOps {
					f := apply(o, g, h)
					if s.final[f] || (s.cost[f] >= 0 && s.cost[f] <= lb) {
						continue
					}
					if n := s.sharedSize(g, h); s.cost[f] < 0 || int8(n) < s.cost[f] {
						s.circ[f], s.cost[f] = s.combine(o, g, h), int8(n)
					}
				}
			}
		}
		var next []smallest.TT
		for f := range smallest.TT(1<<16 - 1) {
			if !s.final[f] && s.cost[f] == int8(level) {
				s.final[f] = true
				next = append(next, f)
			}
		}
		if len(next) == 0 {
			log.Fatalf("gen: level %d found nothing with %d functions left", level, 1<<15-done)
		}
		byCost = append(byCost, next)
		known = append(known, next...)
		done += len(next)
		log.Printf("cost %d: %d normal functions", level, len(next))
	}
}

// circuit returns the circuit of any function, negating a non-normal one's
// normal complement.
func (s *search) circuit(f smallest.TT) smallest.Circuit {
	n := f
	if f&1 == 1 {
		n = ^f
	}
	var c smallest.Circuit
	switch {
	case n == 0:
		c.Out = smallest.Const
	case len(s.circ[n]) == 0:
		c.Out = operand(n, nil)
	default:
		for _, m := range s.circ[n] {
			c.Gates = append(c.Gates, smallest.Gate{Op: m.op, A: m.a, B: m.b})
		}
		c.Out = uint8(4 + len(c.Gates) - 1)
	}
	if f != n {
		c = smallest.Transform{Perm: [4]uint8{0, 1, 2, 3}, NotOut: true}.Circuit(c)
	}
	return c
}

func main() {
	log.SetFlags(0)
	out := flag.String("o", "table.go", "the Go file to write")
	flag.Parse()
	start := time.Now()
	s := newSearch()
	s.run()
	reps := smallest.Classes()
	best := make([]smallest.Circuit, len(reps))
	found := make([]bool, len(reps))
	var sizes [8]int
	for f := range 1 << 16 {
		c := s.circuit(smallest.TT(f))
		if c.Eval() != smallest.TT(f) {
			log.Fatalf("gen: the circuit found for %#04x computes %#04x", f, c.Eval())
		}
		sizes[len(c.Gates)]++
		i, t := smallest.ClassOf(smallest.TT(f))
		if !found[i] || len(c.Gates) < len(best[i].Gates) {
			best[i], found[i] = t.Inverse().Circuit(c), true
		}
	}
	log.Printf("all 65536 functions by size: %v (%v)", sizes, time.Since(start).Round(time.Millisecond))
	var buf bytes.Buffer
	if err := writeTable(&buf, reps, best); err != nil {
		log.Fatal(err)
	}
	src, err := format.Source(buf.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	err = safefile.Write(*out, func(w io.Writer) error { _, err := w.Write(src); return err })
	if err != nil {
		log.Fatal(err)
	}
}

func writeTable(w io.Writer, reps []smallest.TT, best []smallest.Circuit) error {
	fmt.Fprintf(w, "// Code generated by gen/main.go; DO NOT EDIT.\n\npackage smallest\n\n")
	fmt.Fprintf(w, "// table[i] is a smallest circuit computing Classes()[i].\nvar table = [%d]Circuit{\n", len(reps))
	for i, c := range best {
		if c.Eval() != reps[i] {
			return fmt.Errorf("gen: the circuit for class %#04x computes %#04x", reps[i], c.Eval())
		}
		fmt.Fprintf(w, "\t// %#04x: %d gates\n\t{Gates: []Gate{", reps[i], len(c.Gates))
		for k, g := range c.Gates {
			if k > 0 {
				fmt.Fprint(w, ", ")
			}
			fmt.Fprintf(w, "{%d, %d, %d}", g.Op, g.A, g.B)
		}
		_, err := fmt.Fprintf(w, "}, Out: %d, Not: %v},\n", c.Out, c.Not)
		if err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "}\n")
	return err
}
