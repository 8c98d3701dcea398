package autograd

import (
	"slices"
	"testing"
)

// askingDevice is a bareDevice whose elementwise and reduction kernels only
// note the op names they are asked for (their outputs stay zero): enough to
// see which entries of UnaryOps and BinaryOps this package's functions use.
type askingDevice struct {
	bareDevice
	asked map[string]bool
}

func (*askingDevice) Fill(*Tensor, float64)         {}
func (*askingDevice) Strided(_, _ *Tensor, _ []int) {}
func (d *askingDevice) Unary(op string, _, _ *Tensor, _ ...float64) {
	d.asked[op] = true
}
func (d *askingDevice) Binary(op string, _, _, _ *Tensor)     { d.asked[op] = true }
func (*askingDevice) Where(_, _, _, _ *Tensor)                {}
func (*askingDevice) Reduce(string, *Tensor, *Tensor, int)    {}
func (*askingDevice) ArgReduce(string, *Tensor, *Tensor, int) {}
func (*askingDevice) Softmax(_, _ *Tensor, _ int, _ bool)     {}
func (d *askingDevice) String() string                        { return "asking" }

// TestOpTablesMatchTheFunctions runs every elementwise function, forward
// and backward, on a device that notes the kernel ops it is asked for, and
// requires exactly the names of UnaryOps and BinaryOps: an entry no function
// asks for is dead (or its function no longer reaches the device), and a
// name asked for outside the table would reach a kernel that lacks it (the
// ops refuse it first; this test says which). The GPU's Go and WGSL codes are
// held to the same table by gpu's TestOpCodesMirrorWGSL.
func TestOpTablesMatchTheFunctions(t *testing.T) {
	dev := &askingDevice{asked: map[string]bool{}}
	on := func() *Tensor {
		x, err := New([]float32{0.5, -1, 2, 3}, 2, 2).To(dev)
		if err != nil {
			t.Fatal(err)
		}
		return x.SetRequiresGrad(true)
	}
	unary := []func(*Tensor) *Tensor{
		Abs, Sign, Exp, Log, Log2, Log10, Sqrt, Sin, Cos, Tanh, Sigmoid, Relu, Gelu, GeluTanh,
		Silu, Softplus, Floor, Ceil, Round, Trunc, Square, (*Tensor).Clone,
		func(x *Tensor) *Tensor { return AddScalar(x, 1) },
		func(x *Tensor) *Tensor { return MulScalar(x, 2) },
		func(x *Tensor) *Tensor { return DivScalar(x, 2) },
		func(x *Tensor) *Tensor { return PowScalar(x, 2) },
		func(x *Tensor) *Tensor { return LeakyRelu(x, 0.1) },
		func(x *Tensor) *Tensor { return Clamp(x, -1, 1) },
		func(x *Tensor) *Tensor { return LogSumExp(x, false, 1) },
		func(x *Tensor) *Tensor { return Max(x, false, 1) },
		func(x *Tensor) *Tensor { return Min(x, false, 1) },
	}
	binary := []func(a, b *Tensor) *Tensor{Add, Sub, Mul, Div, Pow, Maximum, Minimum, Gt, Ge, Lt, Le, Eq}
	var steps []func() *Tensor
	for _, f := range unary {
		steps = append(steps, func() *Tensor { return f(on()) })
	}
	for _, f := range binary {
		steps = append(steps, func() *Tensor { return f(on(), on()) })
	}
	for i, step := range steps {
		// A name outside the table panics (naming it) before any kernel.
		if msg := panicMessage(func() {
			y := step()
			if !y.RequiresGrad() { // the comparisons
				return
			}
			if err := Sum(y, false).Backward(); err != nil {
				t.Errorf("step %d: %v", i, err)
			}
		}); msg != "" {
			t.Errorf("step %d: %s", i, msg)
		}
	}
	for _, table := range []struct {
		name string
		ops  []string
	}{{"UnaryOps", UnaryOps}, {"BinaryOps", BinaryOps}} {
		for _, op := range table.ops {
			if !dev.asked[op] {
				t.Errorf("%s lists %q, which no function here asks a device for: remove it (and its kernels' code) or add the function to this test", table.name, op)
			}
		}
	}
	for op := range dev.asked {
		if !slices.Contains(UnaryOps, op) && !slices.Contains(BinaryOps, op) {
			t.Errorf("a function asks a device for %q, which neither UnaryOps nor BinaryOps lists", op)
		}
	}
	for _, table := range [][]string{UnaryOps, BinaryOps} {
		for i, op := range table {
			if slices.Index(table, op) != i {
				t.Errorf("%q is listed twice: a device numbering the ops by index would give it two codes", op)
			}
		}
	}
}
