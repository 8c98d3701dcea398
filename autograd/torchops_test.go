package autograd

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Tests of the PyTorch ops of rearrange.go, einsum.go, quantile.go,
// activation_composed.go, conv_transpose.go and adaptive_pool.go: values
// from PyTorch's documented examples or from an independent brute-force
// definition, gradients against finite differences (first and second
// order).

// arange returns the float64 tensor 0, 1, ..., n-1 in shape.
func arange(shape ...int) *Tensor {
	t := Zeros(Float64, shape...)
	for i := range t.f64 {
		t.f64[i] = float64(i)
	}
	return t
}

func checkShape(t *testing.T, name string, got *Tensor, want ...int) {
	t.Helper()
	if !slices.Equal(got.Shape(), want) {
		t.Fatalf("%s: shape %v, want %v", name, got.Shape(), want)
	}
}

// TestRearrangeValues holds Flip, Roll, Repeat, Split and Chunk to the
// examples of PyTorch's documentation.
func TestRearrangeValues(t *testing.T) {
	// torch.flip: x = arange(8).view(2, 2, 2); flip(x, [0, 1]).
	f := Flip(arange(2, 2, 2), 0, 1)
	checkShape(t, "Flip", f, 2, 2, 2)
	approxEqual(t, "Flip", f.f64, []float64{6, 7, 4, 5, 2, 3, 0, 1}, 0)
	approxEqual(t, "Flip(-1)", Flip(arange(2, 3), -1).f64, []float64{2, 1, 0, 5, 4, 3}, 0)
	mustPanic(t, "Flip twice", func() { Flip(arange(2, 3), 1, -1) }, "Flip", "twice")

	// torch.roll: x = arange(1, 9).view(4, 2).
	x := AddScalar(arange(4, 2), 1)
	for _, c := range []struct {
		name   string
		shifts []int
		dims   []int
		want   []float64
	}{
		{"roll(x, 1)", []int{1}, nil, []float64{8, 1, 2, 3, 4, 5, 6, 7}},
		{"roll(x, 1, 0)", []int{1}, []int{0}, []float64{7, 8, 1, 2, 3, 4, 5, 6}},
		{"roll(x, -1, 0)", []int{-1}, []int{0}, []float64{3, 4, 5, 6, 7, 8, 1, 2}},
		{"roll(x, (2, 1), (0, 1))", []int{2, 1}, []int{0, 1}, []float64{6, 5, 8, 7, 2, 1, 4, 3}},
		{"roll(x, 9, 0) = roll(x, 1, 0)", []int{9}, []int{0}, []float64{7, 8, 1, 2, 3, 4, 5, 6}},
		{"roll(x, (1, 1), (0, 0)) = roll(x, 2, 0)", []int{1, 1}, []int{0, 0}, []float64{5, 6, 7, 8, 1, 2, 3, 4}},
	} {
		r := Roll(x, c.shifts, c.dims...)
		checkShape(t, c.name, r, 4, 2)
		approxEqual(t, c.name, r.f64, c.want, 0)
	}
	mustPanic(t, "Roll shifts and dims", func() { Roll(x, []int{1, 2}, 0) }, "Roll", "2 shifts for 1 dims")
	mustPanic(t, "Roll flat", func() { Roll(x, []int{1, 2}) }, "Roll", "one shift")
	checkShape(t, "Roll empty", Roll(Zeros(Float64, 0, 3), []int{1}, 0), 0, 3)

	// Tensor.repeat: x = [1, 2, 3]; x.repeat(4, 2); x.repeat(4, 2, 1).size().
	v := New64([]float64{1, 2, 3}, 3)
	r := Repeat(v, 4, 2)
	checkShape(t, "repeat(4, 2)", r, 4, 6)
	for row := range 4 {
		approxEqual(t, "repeat(4, 2) row", r.f64[row*6:row*6+6], []float64{1, 2, 3, 1, 2, 3}, 0)
	}
	checkShape(t, "repeat(4, 2, 1)", Repeat(v, 4, 2, 1), 4, 2, 3)
	approxEqual(t, "repeat 2-D", Repeat(arange(2, 2), 1, 2).f64, []float64{0, 1, 0, 1, 2, 3, 2, 3}, 0)
	checkShape(t, "repeat(0, 1)", Repeat(v, 0, 1), 0, 3)
	mustPanic(t, "repeat too few", func() { Repeat(arange(2, 2), 3) }, "Repeat", "at least one per dimension")

	// torch.chunk: arange(11).chunk(6), arange(13).chunk(6).
	lengths := func(ps []*Tensor) []int {
		var n []int
		for _, p := range ps {
			n = append(n, p.Len())
		}
		return n
	}
	if got := lengths(Chunk(arange(11), 6, 0)); !slices.Equal(got, []int{2, 2, 2, 2, 2, 1}) {
		t.Fatalf("arange(11).chunk(6): %v", got)
	}
	c13 := Chunk(arange(13), 6, 0)
	if got := lengths(c13); !slices.Equal(got, []int{3, 3, 3, 3, 1}) {
		t.Fatalf("arange(13).chunk(6): %v (PyTorch returns 5 chunks)", got)
	}
	approxEqual(t, "chunk 4", c13[3].f64, []float64{9, 10, 11}, 0)
	if got := lengths(Chunk(Zeros(Float64, 0), 3, 0)); !slices.Equal(got, []int{0, 0, 0}) {
		t.Fatalf("empty chunk(3): %v", got)
	}
	// torch.split: arange(10).view(5, 2) split 2 and [1, 4].
	s := Split(arange(5, 2), 2, 0)
	if got := lengths(s); !slices.Equal(got, []int{4, 4, 2}) {
		t.Fatalf("split(2): %v", got)
	}
	approxEqual(t, "split(2) last", s[2].f64, []float64{8, 9}, 0)
	s = SplitSizes(arange(5, 2), []int{1, 4}, 0)
	checkShape(t, "split([1, 4])", s[1], 4, 2)
	approxEqual(t, "split([1, 4])", s[0].f64, []float64{0, 1}, 0)
	mustPanic(t, "split sizes", func() { SplitSizes(arange(5, 2), []int{1, 3}, 0) }, "Split", "add up to 4")
	mustPanic(t, "chunk 0", func() { Chunk(arange(5), 0, 0) }, "Chunk", "at least 1")
}

// TestSplitGradientsFlow: the gradient of a loss on the pieces of Split
// and Chunk reaches the input's slices, and nothing else.
func TestSplitGradientsFlow(t *testing.T) {
	x := arange(2, 5).SetRequiresGrad(true)
	ps := Chunk(x, 2, 1) // columns 0-2 and 3-4
	loss := Add(Sum(MulScalar(ps[0], 2), false), Sum(MulScalar(ps[1], -1), false))
	if err := loss.Backward(); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "chunk grad", x.Grad().f64, []float64{2, 2, 2, -1, -1, 2, 2, 2, -1, -1}, 0)
}

// einsumReference computes an einsum by its definition: a sum, over every
// assignment of values to the letters, of the product of the operands'
// entries. It shares no code with Einsum.
func einsumReference(subs string, ops ...*Tensor) []float64 {
	lhs, out, explicit := strings.Cut(subs, "->")
	ins := strings.Split(lhs, ",")
	size := map[byte]int{}
	var letters []byte
	for k, in := range ins {
		for d := range len(in) {
			if _, ok := size[in[d]]; !ok {
				letters = append(letters, in[d])
			}
			size[in[d]] = max(size[in[d]], ops[k].shape[d])
		}
	}
	if !explicit {
		var once []byte
		for _, l := range letters {
			if strings.Count(lhs, string(l)) == 1 {
				once = append(once, l)
			}
		}
		sort.Slice(once, func(i, j int) bool { return once[i] < once[j] })
		out = string(once)
	}
	n := 1
	for i := range len(out) {
		n *= size[out[i]]
	}
	res := make([]float64, n)
	val := map[byte]int{}
	var visit func(i int)
	visit = func(i int) {
		if i == len(letters) {
			p := 1.0
			for k, in := range ins {
				off := 0
				for d := range len(in) {
					i := val[in[d]]
					if ops[k].shape[d] == 1 { // broadcast
						i = 0
					}
					off = off*ops[k].shape[d] + i
				}
				p *= ops[k].At(off)
			}
			off := 0
			for d := range len(out) {
				off = off*size[out[d]] + val[out[d]]
			}
			res[off] += p
			return
		}
		for v := range size[letters[i]] {
			val[letters[i]] = v
			visit(i + 1)
		}
	}
	visit(0)
	return res
}

// einsumCases are subscripts with operand shapes, covering the common
// forms and the paths of Einsum (diagonals, sums, MatMul, Mul, three
// operands, the implicit output).
var einsumCases = []struct {
	subs   string
	shapes [][]int
}{
	{"ij,jk->ik", [][]int{{3, 4}, {4, 2}}},
	{"bij,bjk->bik", [][]int{{2, 3, 4}, {2, 4, 5}}},
	{"ij->ji", [][]int{{3, 4}}},
	{"ii->", [][]int{{4, 4}}},
	{"ii->i", [][]int{{3, 3}}},
	{"i,j->ij", [][]int{{3}, {4}}},
	{"ij->j", [][]int{{3, 4}}},
	{"ij->", [][]int{{3, 4}}},
	{"i,i->", [][]int{{5}, {5}}},
	{"ij,ij->ij", [][]int{{3, 4}, {3, 4}}},
	{"ij,j->i", [][]int{{3, 4}, {4}}},
	{"bn,anm,bm->ba", [][]int{{2, 3}, {4, 3, 5}, {2, 5}}},
	{"ij,jk", [][]int{{3, 4}, {4, 2}}},
	{"ba", [][]int{{3, 2}}},
	{"iij,jk->ik", [][]int{{3, 3, 2}, {2, 4}}},
	{"bij,bkj->bik", [][]int{{2, 3, 4}, {2, 5, 4}}},
	{"ijk->kij", [][]int{{2, 3, 4}}},
	{"i,jk->", [][]int{{3}, {2, 2}}},
	{"ab,cd->dacb", [][]int{{2, 3}, {2, 2}}},
	{"ij,jk->ik", [][]int{{3, 1}, {4, 2}}},
	{"bij,bjk->bik", [][]int{{1, 3, 4}, {2, 4, 1}}},
	{"ii,i->i", [][]int{{1, 1}, {3}}},
	{",ij->ij", [][]int{{}, {2, 3}}},
	{"iji->j", [][]int{{3, 2, 3}}},
	{"iii->i", [][]int{{2, 2, 2}}},
}

// TestEinsumValues compares Einsum with its definition on every case, and
// checks that bad subscripts panic naming what is wrong.
func TestEinsumValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, c := range einsumCases {
		ops := make([]*Tensor, len(c.shapes))
		for i, s := range c.shapes {
			ops[i] = uniform(rng, -1, 1, s...)
		}
		got := Einsum(c.subs, ops...)
		approxEqual(t, c.subs, got.f64, einsumReference(c.subs, ops...), 1e-12)
	}
	a, b := arange(2, 3), arange(3, 4)
	for _, c := range []struct {
		subs string
		ops  []*Tensor
		want string
	}{
		{"...ij,jk->ik", []*Tensor{a, b}, "ellipsis"},
		{"ij,jk->ik", []*Tensor{a}, "2 operand subscripts for 1 operands"},
		{"ijk,jk->ik", []*Tensor{a, b}, "names 3"},
		{"ij,ik->ik", []*Tensor{a, b}, `letter 'i' has lengths 2 and 3`},
		{"ii->i", []*Tensor{a}, "a diagonal needs equal lengths"},
		{"ij,jk->iz", []*Tensor{a, b}, `'z' appears in no operand`},
		{"ij,jk->ii", []*Tensor{a, b}, "twice"},
		{"i1,jk->ik", []*Tensor{a, b}, "not a letter"},
	} {
		mustPanic(t, c.subs, func() { Einsum(c.subs, c.ops...) }, "Einsum", c.subs, c.want)
	}
}

// TestMedianQuantileValues holds Median and Quantile to PyTorch's
// documented rules: the lower middle value, torch.quantile's example
// a = [0, 1, 2, 3] at q = 0.6, torch.round's half-to-even rule for
// nearest, NaN propagation, and the shapes of dim, keepdim and a list of q.
func TestMedianQuantileValues(t *testing.T) {
	if got := Median(New64([]float64{4, 1, 3, 2}, 2, 2)).Item(); got != 2 {
		t.Fatalf("median of 1..4 = %v, want the lower middle 2", got)
	}
	m, idx := MedianDim(New64([]float64{5, 1, 9, 7, 3, 2, 2, 8}, 2, 4), 1, true)
	checkShape(t, "MedianDim keepdim", m, 2, 1)
	approxEqual(t, "MedianDim", m.f64, []float64{5, 2}, 0)
	if idx[0] != 0 || m.f64[1] != 2 || (idx[1] != 1 && idx[1] != 2) {
		t.Fatalf("MedianDim indices %v", idx)
	}
	m, _ = MedianDim(New64([]float64{1, math.NaN(), 3}, 3), 0, false)
	if !math.IsNaN(m.Item()) {
		t.Fatalf("median with a NaN = %v, want NaN", m.Item())
	}

	a := New64([]float64{3, 0, 2, 1}, 4) // sorted 0, 1, 2, 3
	for _, c := range []struct {
		interp Interpolation
		want   float64
	}{{InterpolateLinear, 1.8}, {InterpolateLower, 1}, {InterpolateHigher, 2}, {InterpolateMidpoint, 1.5}, {InterpolateNearest, 2}} {
		if got := Quantile(a, 0.6, QuantileConfig{Interpolation: c.interp}).Item(); math.Abs(got-c.want) > 1e-12 {
			t.Fatalf("quantile(a, 0.6, %d) = %v, want %v", c.interp, got, c.want)
		}
	}
	// Positions 1.5 and 2.5 in [0 .. 4] round to 2 and 2 (half to even).
	five := arange(5)
	for _, q := range []float64{0.375, 0.625} {
		if got := Quantile(five, q, QuantileConfig{Interpolation: InterpolateNearest}).Item(); got != 2 {
			t.Fatalf("nearest at q=%v: %v, want 2", q, got)
		}
	}
	if got := Quantile(New64([]float64{1, math.NaN(), 3}, 3), 0.2, QuantileConfig{}).Item(); !math.IsNaN(got) {
		t.Fatalf("quantile with a NaN = %v, want NaN", got)
	}
	x := New64([]float64{4, 0, 8, 2, 6, 1, 3, 5, 7, 9, 11, 10}, 3, 4)
	q := Quantiles(x, []float64{0, 0.5, 1}, QuantileConfig{AlongAxis: true, Axis: 1})
	checkShape(t, "quantiles dim 1", q, 3, 3)
	// Rows sorted: [0 2 4 8], [1 3 5 6], [7 9 10 11].
	approxEqual(t, "quantiles dim 1", q.f64, []float64{0, 1, 7, 3, 4, 9.5, 8, 6, 11}, 1e-12)
	checkShape(t, "quantiles keepdim", Quantiles(x, []float64{0.5, 0.1}, QuantileConfig{AlongAxis: true, Axis: 0, Keepdim: true}), 2, 1, 4)
	checkShape(t, "quantile flat keepdim", Quantile(x, 0.5, QuantileConfig{Keepdim: true}), 1, 1)
	checkShape(t, "quantiles flat", Quantiles(x, []float64{0.5, 0.1}, QuantileConfig{}), 2)
	if got := Quantile(x, 0.5, QuantileConfig{}).Item(); got != 5.5 {
		t.Fatalf("flat median quantile %v, want 5.5", got)
	}
	mustPanic(t, "q > 1", func() { Quantile(x, 1.5, QuantileConfig{}) }, "Quantile", "outside [0, 1]")
	mustPanic(t, "empty", func() { Median(Zeros(Float64, 0)) }, "Median", "empty")
}

// TestQuantileGradientGoesToChosen: the gradient of a linear quantile is
// 1-f and f on the two elements around it, of median 1 on the chosen one.
func TestQuantileGradientGoesToChosen(t *testing.T) {
	x := New64([]float64{3, 0, 2, 1}, 4).SetRequiresGrad(true)
	if err := Quantile(x, 0.6, QuantileConfig{}).Backward(); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "quantile grad", x.Grad().f64, []float64{0, 0, 0.8, 0.2}, 1e-12)
	x.ZeroGrad()
	if err := Median(x).Backward(); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "median grad", x.Grad().f64, []float64{0, 0, 0, 1}, 0)
}

// TestComposedActivationValues checks Relu6, Softsign, Softmin and the
// flattened ArgMax against their definitions, including the gradients at
// the kinks that PyTorch documents through hardtanh and abs.
func TestComposedActivationValues(t *testing.T) {
	x := New64([]float64{-1, 0, 3, 6, 7}, 5).SetRequiresGrad(true)
	y := Relu6(x)
	approxEqual(t, "relu6", y.f64, []float64{0, 0, 3, 6, 6}, 0)
	if err := Sum(y, false).Backward(); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "relu6 grad (hardtanh's: 0 at both bounds)", x.Grad().f64, []float64{0, 0, 1, 0, 0}, 0)

	x = New64([]float64{-3, 0, 1}, 3).SetRequiresGrad(true)
	y = Softsign(x)
	approxEqual(t, "softsign", y.f64, []float64{-0.75, 0, 0.5}, 1e-15)
	if err := Sum(y, false).Backward(); err != nil {
		t.Fatal(err)
	}
	approxEqual(t, "softsign grad 1/(1+|x|)²", x.Grad().f64, []float64{1.0 / 16, 1, 0.25}, 1e-15)

	sm := Softmin(New64([]float64{1, 2, 3, 0, 0, 0}, 2, 3), 1)
	e := []float64{math.Exp(-1), math.Exp(-2), math.Exp(-3)}
	z := e[0] + e[1] + e[2]
	approxEqual(t, "softmin", sm.f64, []float64{e[0] / z, e[1] / z, e[2] / z, 1.0 / 3, 1.0 / 3, 1.0 / 3}, 1e-15)

	if got := ArgMaxAll(New64([]float64{1, 5, 2, 5, 0, 3}, 2, 3)); got != 1 {
		t.Fatalf("argmax with ties = %d, want the first, 1", got)
	}
	if got := ArgMaxAll(New64([]float64{1, 5, math.NaN(), 9}, 2, 2)); got != 2 {
		t.Fatalf("argmax with NaN = %d, want 2", got)
	}
	if got := ArgMinAll(New64([]float64{1, -5, 2, -5}, 2, 2)); got != 1 {
		t.Fatalf("argmin = %d, want 1", got)
	}
	if got := ArgMaxAll(Scalar64(4)); got != 0 {
		t.Fatalf("argmax of a scalar = %d", got)
	}
	mustPanic(t, "argmax empty", func() { ArgMaxAll(Zeros(Float64, 0)) }, "ArgMax", "empty")
}

// convTransposeReference is conv_transpose2d by its definition: every
// input element adds x·w into the output cells its kernel taps reach,
// y[n, g·og+o, i·s - p + k·d] += x[n, c, i]·w[c, o, k].
func convTransposeReference(x, w *Tensor, cfg ConvTranspose2dConfig, outH, outW int) []float64 {
	n, cin, h, wd := x.shape[0], x.shape[1], x.shape[2], x.shape[3]
	og, kh, kw := w.shape[1], w.shape[2], w.shape[3]
	groups := max(cfg.Groups, 1)
	cout := og * groups
	y := make([]float64, n*cout*outH*outW)
	s, p, d := cfg.Stride, cfg.Padding, cfg.Dilation
	for i := range 2 {
		s[i], d[i] = max(s[i], 1), max(d[i], 1)
	}
	for b := range n {
		for c := range cin {
			g := c / (cin / groups)
			for i := range h {
				for j := range wd {
					xv := x.f64[((b*cin+c)*h+i)*wd+j]
					for o := range og {
						for ki := range kh {
							for kj := range kw {
								oi, oj := i*s[0]-p[0]+ki*d[0], j*s[1]-p[1]+kj*d[1]
								if oi < 0 || oi >= outH || oj < 0 || oj >= outW {
									continue
								}
								y[((b*cout+g*og+o)*outH+oi)*outW+oj] += xv * w.f64[((c*og+o)*kh+ki)*kw+kj]
							}
						}
					}
				}
			}
		}
	}
	return y
}

// convTransposeCases cover stride, padding, output padding (below the
// stride, and below the dilation alone), dilation and groups.
var convTransposeCases = []struct {
	name       string
	x, w       []int
	cfg        ConvTranspose2dConfig
	outH, outW int
}{
	{"plain", []int{2, 3, 4, 5}, []int{3, 2, 3, 3}, ConvTranspose2dConfig{}, 6, 7},
	{"stride 2 padding 1", []int{1, 2, 3, 4}, []int{2, 3, 3, 3}, ConvTranspose2dConfig{Stride: [2]int{2, 2}, Padding: [2]int{1, 1}}, 5, 7},
	{"output padding", []int{1, 2, 3, 3}, []int{2, 2, 3, 2}, ConvTranspose2dConfig{Stride: [2]int{2, 3}, Padding: [2]int{1, 0}, OutputPadding: [2]int{1, 2}}, 6, 10},
	{"dilation", []int{2, 2, 3, 4}, []int{2, 1, 2, 3}, ConvTranspose2dConfig{Dilation: [2]int{2, 3}, Padding: [2]int{1, 2}}, 3, 6},
	{"output padding under dilation", []int{1, 1, 3, 3}, []int{1, 1, 2, 2}, ConvTranspose2dConfig{Dilation: [2]int{3, 3}, OutputPadding: [2]int{2, 1}}, 8, 7},
	{"groups", []int{2, 4, 3, 3}, []int{4, 3, 2, 2}, ConvTranspose2dConfig{Groups: 2, Stride: [2]int{2, 1}}, 6, 4},
}

// TestConvTranspose2dValues compares ConvTranspose2d with its definition,
// and the output size with PyTorch's formula (worked out in the cases).
func TestConvTranspose2dValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for _, c := range convTransposeCases {
		x, w := uniform(rng, -1, 1, c.x...), uniform(rng, -1, 1, c.w...)
		cout := c.w[1] * max(c.cfg.Groups, 1)
		bias := uniform(rng, -1, 1, cout)
		y := ConvTranspose2d(x, w, bias, c.cfg)
		checkShape(t, c.name, y, c.x[0], cout, c.outH, c.outW)
		want := convTransposeReference(x, w, c.cfg, c.outH, c.outW)
		for i := range want {
			want[i] += bias.f64[(i/(c.outH*c.outW))%cout]
		}
		approxEqual(t, c.name, y.f64, want, 1e-12)
	}
	x, w := arange(1, 2, 3, 3), arange(2, 1, 3, 3)
	mustPanic(t, "output padding", func() {
		ConvTranspose2d(x, w, nil, ConvTranspose2dConfig{Stride: [2]int{2, 2}, OutputPadding: [2]int{2, 0}})
	},
		"ConvTranspose2d", "output padding < stride or dilation")
	mustPanic(t, "channels", func() { ConvTranspose2d(x, arange(3, 1, 3, 3), nil, ConvTranspose2dConfig{}) }, "ConvTranspose2d", "[Cin, Cout/groups, KH, KW]")
	mustPanic(t, "bias", func() { ConvTranspose2d(x, w, arange(2), ConvTranspose2dConfig{}) }, "ConvTranspose2d", "want [1]")
}

// TestAdaptiveAvgPool2dValues compares AdaptiveAvgPool2d with PyTorch's
// window formula, computed here directly, including overlapping windows,
// an output larger than the input and a kept axis.
func TestAdaptiveAvgPool2dValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, c := range []struct {
		in   []int
		size [2]int
	}{{[]int{2, 3, 7, 5}, [2]int{3, 2}}, {[]int{3, 4, 6}, [2]int{4, 3}}, {[]int{1, 1, 3, 2}, [2]int{5, 4}}, {[]int{1, 2, 5, 4}, [2]int{2, 0}}} {
		x := uniform(rng, -1, 1, c.in...)
		y := AdaptiveAvgPool2d(x, c.size)
		h, w := c.in[len(c.in)-2], c.in[len(c.in)-1]
		oh, ow := c.size[0], c.size[1]
		if ow == 0 {
			ow = w
		}
		planes := x.Len() / (h * w)
		want := make([]float64, 0, planes*oh*ow)
		for p := range planes {
			for i := range oh {
				for j := range ow {
					h0, h1 := int(math.Floor(float64(i*h)/float64(oh))), int(math.Ceil(float64((i+1)*h)/float64(oh)))
					w0, w1 := int(math.Floor(float64(j*w)/float64(ow))), int(math.Ceil(float64((j+1)*w)/float64(ow)))
					sum := 0.0
					for r := h0; r < h1; r++ {
						for q := w0; q < w1; q++ {
							sum += x.f64[(p*h+r)*w+q]
						}
					}
					want = append(want, sum/float64((h1-h0)*(w1-w0)))
				}
			}
		}
		shape := append(cloneInts(c.in[:len(c.in)-2]), oh, ow)
		checkShape(t, "AdaptiveAvgPool2d", y, shape...)
		approxEqual(t, "AdaptiveAvgPool2d", y.f64, want, 1e-12)
	}
	mustPanic(t, "rank", func() { AdaptiveAvgPool2d(arange(4, 4), [2]int{2, 2}) }, "AdaptiveAvgPool2d", "[4 4]")
}

// torchOpCases are the gradient-check cases of the new ops, at points
// away from their kinks and ties.
func torchOpCases() []gradCase {
	u := func(shapes ...[]int) func(*rand.Rand) []*Tensor {
		return func(r *rand.Rand) []*Tensor {
			var in []*Tensor
			for _, s := range shapes {
				in = append(in, uniform(r, -1, 1, s...))
			}
			return in
		}
	}
	dist := func(shape ...int) func(*rand.Rand) []*Tensor {
		return func(r *rand.Rand) []*Tensor { return []*Tensor{distinct(r, shape...)} }
	}
	// Square makes the upstream gradient depend on the input, so linear
	// ops are checked to second order too.
	sq := func(f func(*Tensor) *Tensor) func([]*Tensor) *Tensor {
		return func(x []*Tensor) *Tensor { return f(Square(x[0])) }
	}
	// mono is increasing on distinct's values (in [-1, 0.5)), keeping them
	// apart, where Square would make ties of ±v.
	mono := func(f func(*Tensor) *Tensor) func([]*Tensor) *Tensor {
		return func(x []*Tensor) *Tensor { return f(Mul(x[0], AddScalar(x[0], 3))) }
	}
	cases := []gradCase{
		{"Flip", u([]int{2, 3, 4}), sq(func(a *Tensor) *Tensor { return Flip(a, 0, 2) })},
		{"Roll", u([]int{3, 4}), sq(func(a *Tensor) *Tensor { return Roll(a, []int{1, -5}, 0, 1) })},
		{"Roll/flat", u([]int{3, 4}), sq(func(a *Tensor) *Tensor { return Roll(a, []int{5}) })},
		{"Repeat", u([]int{2, 3}), sq(func(a *Tensor) *Tensor { return Repeat(a, 2, 1, 3) })},
		{"Split", u([]int{5, 2}), sq(func(a *Tensor) *Tensor {
			p := Split(a, 2, 0)
			return Cat(0, MulScalar(p[2], 3), p[0])
		})},
		{"SplitSizes", u([]int{2, 5}), sq(func(a *Tensor) *Tensor { return Exp(SplitSizes(a, []int{3, 2}, 1)[0]) })},
		{"Chunk", u([]int{2, 5}), sq(func(a *Tensor) *Tensor { p := Chunk(a, 2, -1); return Mul(p[1], Narrow(p[0], 1, 0, 2)) })},
		{"Median", dist(3, 4), mono(Median)},
		{"MedianDim", dist(3, 4), mono(func(a *Tensor) *Tensor { m, _ := MedianDim(a, 0, true); return m })},
		{"Relu6", func(r *rand.Rand) []*Tensor {
			return []*Tensor{New64([]float64{-1, 0.5, 3, 5.5, 7, 2}, 6)}
		}, func(x []*Tensor) *Tensor { return Relu6(Mul(x[0], x[0])) }},
		{"Softsign", u([]int{7}), func(x []*Tensor) *Tensor { return Softsign(MulScalar(x[0], 3)) }},
		{"Softmin", u([]int{3, 4}), func(x []*Tensor) *Tensor { return Softmin(x[0], 1) }},
		{"AdaptiveAvgPool2d", u([]int{2, 2, 5, 7}), sq(func(a *Tensor) *Tensor { return AdaptiveAvgPool2d(a, [2]int{3, 4}) })},
	}
	for _, in := range []Interpolation{InterpolateLinear, InterpolateLower, InterpolateHigher, InterpolateNearest, InterpolateMidpoint} {
		cases = append(cases,
			gradCase{"Quantile", dist(7), mono(func(a *Tensor) *Tensor { return Quantile(a, 0.3, QuantileConfig{Interpolation: in}) })},
			gradCase{"Quantiles", dist(3, 5), mono(func(a *Tensor) *Tensor {
				return Quantiles(a, []float64{0.1, 0.5, 0.9}, QuantileConfig{AlongAxis: true, Axis: 1, Keepdim: true, Interpolation: in})
			})})
	}
	for _, c := range einsumCases {
		cases = append(cases, gradCase{"Einsum " + c.subs, u(c.shapes...), func(x []*Tensor) *Tensor {
			sq := make([]*Tensor, len(x))
			for i := range x {
				sq[i] = Mul(x[i], AddScalar(x[i], 0.5))
			}
			return Einsum(c.subs, sq...)
		}})
	}
	for _, c := range convTransposeCases {
		cout := c.w[1] * max(c.cfg.Groups, 1)
		cases = append(cases, gradCase{"ConvTranspose2d " + c.name, u(c.x, c.w, []int{cout}), func(x []*Tensor) *Tensor {
			return ConvTranspose2d(Square(x[0]), x[1], x[2], c.cfg)
		}})
	}
	return cases
}

// TestGradCheckTorchOps checks the first derivatives of the new ops
// against central finite differences.
func TestGradCheckTorchOps(t *testing.T) {
	for _, c := range torchOpCases() {
		t.Run(c.name, func(t *testing.T) {
			in := c.in(rand.New(rand.NewPCG(21, 22)))
			if err := CheckGrad(c.f, in, 1e-6, 1e-6); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestGradGradTorchOps checks their second derivatives (CheckGradGrad):
// the ops are compositions, so their gradients are differentiable again.
func TestGradGradTorchOps(t *testing.T) {
	for _, c := range torchOpCases() {
		t.Run(c.name, func(t *testing.T) {
			in := c.in(rand.New(rand.NewPCG(21, 22)))
			if err := CheckGradGrad(c.f, in, 1e-6, 1e-5); err != nil {
				t.Fatal(err)
			}
		})
	}
}
