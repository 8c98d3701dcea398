package autograd

import (
	"fmt"
	"slices"
	"strings"
)

// Einsum evaluates the Einstein summation named by subscripts on the
// operands, as torch.einsum: "ij,jk->ik" is a matrix product,
// "bij,bjk->bik" a batched one, "ij->ji" a transpose, "ii->" the trace,
// "ii->i" the diagonal, "i,j->ij" the outer product, "ij->j" a sum over i,
// "ij,ij->ij" the elementwise product. Each operand has one letter (a-z,
// A-Z) per dimension; a letter repeated within an operand takes the
// diagonal; letters missing from the output are summed over. Without
// "->" the output is, as in PyTorch, the letters that appear once, in
// alphabetical order (upper case first).
//
// It is computed with the existing ops, so its gradients are theirs:
// diagonals with IndexSelect, sums with Sum, and each pair of operands,
// left to right, with one batched MatMul (or an elementwise Mul when they
// share no summed letter) after Permute and Reshape. It panics, naming the
// subscript, on an ellipsis ("..." is not supported), a character that is
// not a letter, a count of letters that differs from an operand's
// dimensions, one letter with two lengths neither of which is 1 (a length
// 1 broadcasts, as in PyTorch; within one operand a repeated letter's
// lengths must be equal), or an output letter that is repeated or missing
// from the inputs.
func Einsum(subscripts string, operands ...*Tensor) *Tensor {
	ins, out, size := parseEinsum(subscripts, operands)
	terms := make([]einsumTerm, len(operands))
	for k, op := range operands {
		shape := make([]int, len(ins[k]))
		for d, l := range ins[k] {
			shape[d] = size[l]
		}
		terms[k] = einsumTerm{Expand(op, shape...), ins[k]}.diagonals()
	}
	// needed(k) lists the letters still needed once the operands before k
	// are combined: the output's and those of operands k, k+1, ...
	needed := func(after int) string {
		s := out
		for _, t := range terms[after:] {
			s += t.letters
		}
		return s
	}
	acc := terms[0].sumAllBut(needed(1))
	for k := 1; k < len(terms); k++ {
		keep := needed(k + 1)
		acc = acc.sumAllBut(keep + terms[k].letters)
		next := terms[k].sumAllBut(keep + acc.letters)
		acc = acc.contract(next, keep)
	}
	acc = acc.sumAllBut(out)
	perm := make([]int, len(out))
	for i, l := range out {
		perm[i] = strings.IndexRune(acc.letters, l)
	}
	if len(perm) < 2 || slices.IsSorted(perm) {
		return acc.t
	}
	return Permute(acc.t, perm...)
}

// einsumTerm is a tensor with one letter per dimension.
type einsumTerm struct {
	t       *Tensor
	letters string
}

// parseEinsum splits subscripts into one letter string per operand and
// the output's, checking them against the operands, and returns each
// letter's length after broadcasting.
func parseEinsum(subscripts string, operands []*Tensor) (ins []string, out string, size map[rune]int) {
	fail := func(format string, args ...any) {
		panic(fmt.Sprintf("autograd: Einsum %q: ", subscripts) + fmt.Sprintf(format, args...))
	}
	s := strings.ReplaceAll(subscripts, " ", "")
	if strings.Contains(s, ".") {
		fail("the ellipsis '...' is not supported (name every dimension with a letter)")
	}
	lhs, rhs, explicit := strings.Cut(s, "->")
	ins = strings.Split(lhs, ",")
	if len(operands) == 0 || len(ins) != len(operands) {
		fail("%d operand subscripts for %d operands", len(ins), len(operands))
	}
	size = map[rune]int{}
	count := map[rune]int{}
	for k, in := range ins {
		for _, l := range in {
			if !isEinsumLetter(l) {
				fail("subscript %q of operand %d: %q is not a letter a-z or A-Z", in, k, l)
			}
		}
		if len(in) != operands[k].Dim() {
			fail("operand %d has %d dimensions %v but subscript %q names %d", k, operands[k].Dim(), operands[k].shape, in, len(in))
		}
		for d, l := range in {
			n := operands[k].shape[d]
			if j := strings.IndexRune(in, l); j < d && operands[k].shape[j] != n {
				fail("letter %q names lengths %d and %d of operand %d %v (a diagonal needs equal lengths)", l, operands[k].shape[j], n, k, operands[k].shape)
			}
			m, seen := size[l]
			if seen && m != n && m != 1 && n != 1 {
				fail("letter %q has lengths %d and %d (operand %d %v); they must match or one be 1", l, m, n, k, operands[k].shape)
			}
			if !seen || m == 1 {
				size[l] = n
			}
			count[l]++
		}
		checkDType("Einsum", operands[0], operands[k])
	}
	if !explicit {
		var once []rune
		for l, c := range count {
			if c == 1 {
				once = append(once, l)
			}
		}
		slices.Sort(once)
		return ins, string(once), size
	}
	for i, l := range rhs {
		switch {
		case !isEinsumLetter(l):
			fail("output subscript %q: %q is not a letter a-z or A-Z", rhs, l)
		case strings.ContainsRune(rhs[:i], l):
			fail("output subscript %q names %q twice", rhs, l)
		case count[l] == 0:
			fail("output letter %q appears in no operand", l)
		}
	}
	return ins, rhs, size
}

func isEinsumLetter(l rune) bool { return l >= 'a' && l <= 'z' || l >= 'A' && l <= 'Z' }

// diagonals takes the diagonal over every letter repeated in the term,
// until each letter names one dimension.
func (e einsumTerm) diagonals() einsumTerm {
	for {
		p, q := -1, -1
		for i, l := range e.letters {
			if j := strings.LastIndexByte(e.letters, byte(l)); j != i {
				p, q = i, j
				break
			}
		}
		if p < 0 {
			return e
		}
		// Move p and q last, merge them and pick the n entries (i, i).
		var perm []int
		var rest []byte
		for d := range e.letters {
			if d != p && d != q {
				perm = append(perm, d)
				rest = append(rest, e.letters[d])
			}
		}
		perm = append(perm, p, q)
		n := e.t.shape[p]
		moved := Permute(e.t, perm...)
		shape := append(cloneInts(moved.shape[:len(perm)-2]), n*n)
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i * (n + 1)
		}
		e = einsumTerm{IndexSelect(Reshape(moved, shape...), -1, idx), string(rest) + string(e.letters[p])}
	}
}

// sumAllBut sums the term over its letters that keep does not contain.
func (e einsumTerm) sumAllBut(keep string) einsumTerm {
	var axes []int
	var rest []byte
	for d := range e.letters {
		if strings.IndexByte(keep, e.letters[d]) < 0 {
			axes = append(axes, d)
		} else {
			rest = append(rest, e.letters[d])
		}
	}
	if len(axes) == 0 {
		return e
	}
	return einsumTerm{Sum(e.t, false, axes...), string(rest)}
}

// contract multiplies two terms, summing over the letters they share that
// keep does not contain; every other letter is in keep (sumAllBut). The
// result's letters are the shared kept ones (the batch), then a's own,
// then b's own: one batched MatMul [batch, aOwn, summed] × [batch,
// summed, bOwn], or a broadcast Mul when nothing is summed.
func (a einsumTerm) contract(b einsumTerm, keep string) einsumTerm {
	var batch, summed, aOwn, bOwn []byte
	for d := range a.letters {
		l := a.letters[d]
		switch {
		case strings.IndexByte(b.letters, l) < 0:
			aOwn = append(aOwn, l)
		case strings.IndexByte(keep, l) >= 0:
			batch = append(batch, l)
		default:
			summed = append(summed, l)
		}
	}
	for d := range b.letters {
		if l := b.letters[d]; strings.IndexByte(a.letters, l) < 0 {
			bOwn = append(bOwn, l)
		}
	}
	size := func(e einsumTerm, ls []byte) (shape []int, n int) {
		n = 1
		for _, l := range ls {
			s := e.t.shape[strings.IndexByte(e.letters, l)]
			shape, n = append(shape, s), n*s
		}
		return shape, n
	}
	batchShape, nb := size(a, batch)
	aShape, na := size(a, aOwn)
	bShape, nbo := size(b, bOwn)
	_, ns := size(a, summed)
	left := a.arranged(batch, aOwn, summed, nb, na, ns)
	right := b.arranged(batch, summed, bOwn, nb, ns, nbo)
	var prod *Tensor
	if len(summed) == 0 { // [nb, na, 1] · [nb, 1, nbo]
		prod = Mul(left, right)
	} else {
		prod = MatMul(left, right)
	}
	shape := append(append(batchShape, aShape...), bShape...)
	return einsumTerm{Reshape(prod, shape...), string(batch) + string(aOwn) + string(bOwn)}
}

// arranged returns the term's tensor permuted to the letter groups x, y, z
// and reshaped to [nx, ny, nz].
func (e einsumTerm) arranged(x, y, z []byte, nx, ny, nz int) *Tensor {
	var perm []int
	for _, group := range [][]byte{x, y, z} {
		for _, l := range group {
			perm = append(perm, strings.IndexByte(e.letters, l))
		}
	}
	t := e.t
	if len(perm) > 1 && !slices.IsSorted(perm) {
		t = Permute(t, perm...)
	}
	return Reshape(t, nx, ny, nz)
}
