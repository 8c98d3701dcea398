package gpu

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
	"github.com/dlca/dlca/autograd/optim"
)

// mlpRun is a small MLP (12-16-4, ReLU) with Adam on an autograd device,
// and its training step as a StepFunc: softmax cross-entropy against
// one-hot targets (an input tensor, so that a replay sees new labels).
type mlpRun struct {
	model nn.Module
	opt   *optim.Adam
	sgd   *optim.SGD // in place of opt, when the run was made with one
	step  StepFunc
}

func newMLPRun(t *testing.T, dev *AutogradDevice, seed uint64, clip bool) *mlpRun {
	return newMLPRunWith(t, dev, seed, clip, nil)
}

// mlpIn, mlpHidden and mlpOut are the test MLP's sizes.
const mlpIn, mlpHidden, mlpOut = 12, 16, 4

// newMLPRunWith is newMLPRun with the optimiser sgd makes, when not nil,
// in place of Adam (opt is then nil).
func newMLPRunWith(t *testing.T, dev *AutogradDevice, seed uint64, clip bool, sgd func([]*autograd.Tensor) *optim.SGD) *mlpRun {
	return newMLPRunSized(t, dev, seed, clip, sgd, mlpIn, mlpHidden, mlpOut)
}

// newMLPRunSized is newMLPRunWith for an in-hidden-out MLP.
func newMLPRunSized(t testing.TB, dev *AutogradDevice, seed uint64, clip bool, sgd func([]*autograd.Tensor) *optim.SGD, in, hidden, out int) *mlpRun {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 2))
	m := nn.NewSequential(
		nn.NewLinear(in, hidden, true, autograd.Float32, rng),
		nn.ReLU,
		nn.NewLinear(hidden, out, true, autograd.Float32, rng),
	)
	if err := nn.To(m, dev); err != nil {
		t.Fatal(err)
	}
	c := optim.DefaultAdam()
	c.LR, c.WeightDecay = 0.01, 0.001
	r := &mlpRun{model: m}
	var opt optim.Optimizer
	if sgd != nil {
		r.sgd = sgd(m.Parameters())
		opt = r.sgd
	} else {
		r.opt = optim.NewAdam(m.Parameters(), c)
		opt = r.opt
	}
	r.step = func(in []*autograd.Tensor) ([]*autograd.Tensor, error) {
		loss := nn.CrossEntropyLossProbs(m.Forward(in[0]), in[1], nn.ClassOptions{})
		opt.ZeroGrad()
		if err := loss.Backward(); err != nil {
			return nil, err
		}
		if clip {
			optim.ClipGradValue(m.Parameters(), 0.05)
		}
		return []*autograd.Tensor{loss}, opt.Step()
	}
	return r
}

// mlpBatch returns step i's inputs for a batch of n: features and one-hot
// targets, on the CPU.
func mlpBatch(i, n int) (x, y *autograd.Tensor) { return mlpBatchSized(i, n, mlpIn, mlpOut) }

// mlpBatchSized is mlpBatch for in features and out classes.
func mlpBatchSized(i, n, in, out int) (x, y *autograd.Tensor) {
	rng := rand.New(rand.NewPCG(uint64(i), uint64(n)))
	xs := make([]float32, n*in)
	for j := range xs {
		xs[j] = float32(rng.NormFloat64())
	}
	ys := make([]float32, n*out)
	for j := range n {
		ys[j*out+rng.IntN(out)] = 1
	}
	return autograd.New(xs, n, in), autograd.New(ys, n, out)
}

// hostValues reads ts back to the CPU as float32.
func hostValues(t *testing.T, ts ...*autograd.Tensor) [][]float32 {
	t.Helper()
	var out [][]float32
	for _, x := range ts {
		h, err := x.To(autograd.CPU)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, h.Data32())
	}
	return out
}

// sameBits fails t unless got and want hold identical float32 bits.
func sameBits(t *testing.T, what string, got, want [][]float32) {
	t.Helper()
	for i := range want {
		for j := range want[i] {
			if math.Float32bits(got[i][j]) != math.Float32bits(want[i][j]) {
				t.Fatalf("%s: tensor %d element %d is %v captured, %v eager", what, i, j, got[i][j], want[i][j])
			}
		}
	}
}

// moments returns Adam's m and v of every parameter, flattened.
func moments(o *optim.Adam) [][]float32 {
	var out [][]float32
	for _, name := range []string{"m", "v"} {
		for _, b := range o.State().Buffers[name] {
			f := make([]float32, len(b))
			for i, v := range b {
				f[i] = float32(v)
			}
			out = append(out, f)
		}
	}
	return out
}

// TestCaptureEqualsEager trains two identical MLPs for six Adam steps, one
// eagerly and one through a captured, unfused step (a capture, then
// replays, with a learning rate changed between steps as a schedule would,
// and clipping by value), and requires equal bits in the losses, the
// parameters and Adam's moments after every step: a replay submits the
// very kernels of the eager step, over the same data.
func TestCaptureEqualsEager(t *testing.T) {
	dev := testAutograd(t)
	eager := newMLPRun(t, dev, 7, true)
	captured := newMLPRun(t, dev, 7, true)
	step := CaptureUnfused(dev, captured.step)
	defer step.Release()
	for i := range 6 {
		x, y := mlpBatch(i, 8)
		if i == 3 {
			eager.opt.SetGroupLR(0, 0.003)
			captured.opt.SetGroupLR(0, 0.003)
		}
		xd, _ := x.To(dev)
		yd, _ := y.To(dev)
		want, err := eager.step([]*autograd.Tensor{xd, yd})
		if err != nil {
			t.Fatal(err)
		}
		got, err := step.Run(x, y)
		if err != nil {
			t.Fatal(err)
		}
		sameBits(t, "loss", hostValues(t, got...), hostValues(t, want...))
		sameBits(t, "parameters", hostValues(t, captured.model.Parameters()...), hostValues(t, eager.model.Parameters()...))
		sameBits(t, "Adam's moments", moments(captured.opt), moments(eager.opt))
	}
	if got, want := captured.opt.State().ParamSteps, eager.opt.State().ParamSteps; got[0] != want[0] || got[0] != 6 {
		t.Errorf("Adam's step counts: %v captured, %v eager (want 6)", got, want)
	}
	if step.Programs() != 1 {
		t.Errorf("%d programs for one shape, want 1", step.Programs())
	}
}

// TestCaptureSGDEqualsEager is TestCaptureEqualsEager with SGD with
// Nesterov momentum, whose first step starts the momentum buffer from the
// gradient and whose later ones (every replay) decay it.
func TestCaptureSGDEqualsEager(t *testing.T) {
	dev := testAutograd(t)
	sgd := func(ps []*autograd.Tensor) *optim.SGD {
		return optim.NewSGD(ps, optim.SGDConfig{LR: 0.05, Momentum: 0.9, Nesterov: true, WeightDecay: 0.01})
	}
	eager := newMLPRunWith(t, dev, 13, false, sgd)
	captured := newMLPRunWith(t, dev, 13, false, sgd)
	step := CaptureUnfused(dev, captured.step)
	defer step.Release()
	for i := range 5 {
		x, y := mlpBatch(i, 6)
		xd, _ := x.To(dev)
		yd, _ := y.To(dev)
		if _, err := eager.step([]*autograd.Tensor{xd, yd}); err != nil {
			t.Fatal(err)
		}
		if _, err := step.Run(x, y); err != nil {
			t.Fatal(err)
		}
		sameBits(t, fmt.Sprintf("parameters after step %d", i), hostValues(t, captured.model.Parameters()...), hostValues(t, eager.model.Parameters()...))
	}
	if got, want := captured.sgd.State().Steps, eager.sgd.State().Steps; got != want || got != 5 {
		t.Errorf("SGD's step count: %d captured, %d eager (want 5)", got, want)
	}
}

// TestCaptureReplayCounts requires a replay of the MLP step to be one
// submission with no read-back, and the same number of dispatches as the
// eager step.
func TestCaptureReplayCounts(t *testing.T) {
	dev := testAutograd(t)
	eager := newMLPRun(t, dev, 3, false)
	x, y := mlpBatch(0, 8)
	xd, _ := x.To(dev)
	yd, _ := y.To(dev)
	if _, err := eager.step([]*autograd.Tensor{xd, yd}); err != nil { // Adam creates its moments
		t.Fatal(err)
	}
	d0, _ := dev.Counts()
	if _, err := eager.step([]*autograd.Tensor{xd, yd}); err != nil {
		t.Fatal(err)
	}
	d1, _ := dev.Counts()
	captured := newMLPRun(t, dev, 3, false)
	step := CaptureUnfused(dev, captured.step)
	defer step.Release()
	for range 3 { // a warm-up, a capture, a replay
		if _, err := step.Run(x, y); err != nil {
			t.Fatal(err)
		}
	}
	dBefore, sBefore := dev.Counts()
	rBefore := dev.ReadBacks()
	if _, err := step.Run(x, y); err != nil {
		t.Fatal(err)
	}
	dAfter, sAfter := dev.Counts()
	if got, want := dAfter-dBefore, d1-d0; got != want {
		t.Errorf("a replay made %d dispatches, the eager step %d", got, want)
	}
	if got := sAfter - sBefore; got != 1 {
		t.Errorf("a replay made %d submissions, want 1", got)
	}
	if got := dev.ReadBacks() - rBefore; got != 0 {
		t.Errorf("a replay read back %d values, want none", got)
	}
}

// TestCaptureShapeChange runs a captured step on batches of 8, then 5, then
// 8 again: the batch of 5 captures a second program, and every step still
// equals the eager one bit for bit.
func TestCaptureShapeChange(t *testing.T) {
	dev := testAutograd(t)
	eager := newMLPRun(t, dev, 11, false)
	captured := newMLPRun(t, dev, 11, false)
	step := CaptureUnfused(dev, captured.step)
	defer step.Release()
	for i, n := range []int{8, 8, 5, 5, 8} {
		x, y := mlpBatch(i, n)
		xd, _ := x.To(dev)
		yd, _ := y.To(dev)
		want, err := eager.step([]*autograd.Tensor{xd, yd})
		if err != nil {
			t.Fatal(err)
		}
		got, err := step.Run(x, y)
		if err != nil {
			t.Fatal(err)
		}
		sameBits(t, "loss", hostValues(t, got...), hostValues(t, want...))
		sameBits(t, "parameters", hostValues(t, captured.model.Parameters()...), hostValues(t, eager.model.Parameters()...))
	}
	if step.Programs() != 2 {
		t.Errorf("%d programs after batches of 8 and 5, want 2", step.Programs())
	}
}

// TestCaptureErrors: a read-back inside a step (To(autograd.CPU), or ClipGradNorm,
// which reads its norm) runs in the eager warm-up but fails the capture with ErrCaptureReadBack and
// leaves the device usable; an input on the device is refused with a
// message saying what Run takes.
func TestCaptureErrors(t *testing.T) {
	dev := testAutograd(t)
	r := newMLPRun(t, dev, 5, false)
	x, y := mlpBatch(0, 4)
	for name, fn := range map[string]StepFunc{
		"To(CPU)": func(in []*autograd.Tensor) ([]*autograd.Tensor, error) {
			out, err := r.step(in)
			if err == nil {
				_, err = out[0].To(autograd.CPU)
			}
			return out, err
		},
		"ClipGradNorm": func(in []*autograd.Tensor) ([]*autograd.Tensor, error) {
			loss := nn.CrossEntropyLossProbs(r.model.Forward(in[0]), in[1], nn.ClassOptions{})
			r.opt.ZeroGrad()
			if err := loss.Backward(); err != nil {
				return nil, err
			}
			if _, err := optim.ClipGradNorm(r.model.Parameters(), 1, 2); err != nil {
				return nil, err
			}
			return []*autograd.Tensor{loss}, r.opt.Step()
		},
	} {
		step := Capture(dev, fn)
		if _, err := step.Run(x, y); err != nil {
			t.Fatalf("%s: the eager warm-up failed: %v", name, err)
		}
		_, err := step.Run(x, y)
		if !errors.Is(err, ErrCaptureReadBack) {
			t.Errorf("%s inside a captured step: error %v, want ErrCaptureReadBack", name, err)
		}
		if step.Programs() != 0 {
			t.Errorf("%s: a failed capture kept a program", name)
		}
		step.Release()
		if err := dev.Err(); err != nil {
			t.Fatalf("%s: the device failed with the capture: %v", name, err)
		}
	}
	xd, _ := x.To(dev)
	step := Capture(dev, r.step)
	defer step.Release()
	if _, err := step.Run(xd, y); err == nil {
		t.Error("Run took an input on the device, want an error saying it takes CPU tensors")
	}
}

// TestCaptureFusedMatchesEager trains three identical MLPs for five Adam
// steps with value clipping: eagerly on the GPU, through a captured step
// with fusion, and eagerly on the CPU. Fusion must have cut the step's
// dispatches, and the fused run must match the eager one within float32
// rounding and the CPU's within the parity tests' tolerance.
//
// The bound for fused against eager: a fused kernel evaluates each former
// kernel's own float32 expression on the same operands, stores every
// intermediate, and runs the same matrix products and reductions; the one
// freedom WGSL leaves the compiler across the former kernels' boundaries is
// to contract a multiply and an add into one rounding, which moves a value
// by at most half an ulp (2^-24 relative). Through five steps of Adam, whose
// update lr·m̂/(√v̂+ε) moves a parameter by at most about lr = 0.01 per step,
// a relative change of a few ulps in m̂/√v̂ moves a parameter by well under
// 1e-7: 1e-6 of the parameters' scale (max(|p|, 1)) is a bound with room.
func TestCaptureFusedMatchesEager(t *testing.T) {
	for _, epilogues := range []bool{false, true} {
		t.Run(fmt.Sprintf("epilogues=%v", epilogues), func(t *testing.T) { testFusedMatchesEager(t, epilogues) })
	}
}

// testFusedMatchesEager is TestCaptureFusedMatchesEager with matrix
// products' epilogues fused or not.
func testFusedMatchesEager(t *testing.T, epilogues bool) {
	dev := testAutograd(t)
	eager := newMLPRun(t, dev, 9, true)
	fused := newMLPRun(t, dev, 9, true)
	cpu := newMLPRun(t, dev, 9, true)
	if err := nn.To(cpu.model, autograd.CPU); err != nil {
		t.Fatal(err)
	}
	step := Capture(dev, fused.step)
	step.epilogues = epilogues
	defer step.Release()
	for i := range 5 {
		x, y := mlpBatch(i, 8)
		xd, _ := x.To(dev)
		yd, _ := y.To(dev)
		if _, err := eager.step([]*autograd.Tensor{xd, yd}); err != nil {
			t.Fatal(err)
		}
		if _, err := cpu.step([]*autograd.Tensor{x, y}); err != nil {
			t.Fatal(err)
		}
		if _, err := step.Run(x, y); err != nil {
			t.Fatal(err)
		}
	}
	x, y := mlpBatch(0, 8)
	unfused := CaptureUnfused(dev, newMLPRun(t, dev, 9, true).step)
	defer unfused.Release()
	for range 2 {
		if _, err := unfused.Run(x, y); err != nil {
			t.Fatal(err)
		}
	}
	f, u := step.Dispatches(x, y), unfused.Dispatches(x, y)
	if f == 0 || f >= u {
		t.Errorf("the fused step makes %d dispatches, the unfused %d: want fewer", f, u)
	}
	t.Logf("%d dispatches fused, %d unfused", f, u)
	for i, p := range fused.model.Parameters() {
		got := toCPU(t, p)
		for _, e := range differences(fmt.Sprintf("parameter %d against the eager GPU step", i), got, toCPU(t, eager.model.Parameters()[i]), 1e-6) {
			t.Error(e)
		}
		for _, e := range differences(fmt.Sprintf("parameter %d against the CPU", i), got, cpu.model.Parameters()[i], tolElementwise) {
			t.Error(e)
		}
	}
}

// TestCapturePinsItsBuffers captures the MLP step, lets the collector find
// its dead intermediates, and then allocates tensors of every size the
// step used: none may get a buffer the program binds, or a replay would
// overwrite it. After Release the program's parked buffers are free again.
func TestCapturePinsItsBuffers(t *testing.T) {
	dev := testAutograd(t)
	r := newMLPRun(t, dev, 17, false)
	step := Capture(dev, r.step)
	x, y := mlpBatch(0, 8)
	for range 2 { // the warm-up, then the capture
		if _, err := step.Run(x, y); err != nil {
			t.Fatal(err)
		}
	}
	var p *program
	for _, q := range step.progs {
		p = q
	}
	pinned := map[*wgpu.Buffer]bool{}
	for _, b := range p.pinned {
		pinned[b] = true
	}
	runtime.GC()
	dev.InUse() // retires the dead tensors' buffers
	if err := dev.Sync(); err != nil {
		t.Fatal(err)
	}
	if len(dev.pool.parked) == 0 {
		t.Fatal("no buffer of the captured step was parked after its intermediates died")
	}
	var keep []*autograd.Tensor
	for _, n := range []int{1, 4, 8, 16, 32, 64, 128, 192, 12 * 16, 8 * 12, 16 * 4} {
		for range 20 {
			z := autograd.Zeros(autograd.Float32, n)
			d, err := z.To(dev)
			if err != nil {
				t.Fatal(err)
			}
			if pinned[storageOf(d).buf] {
				t.Fatalf("a new tensor of %d elements got a buffer the captured step uses", n)
			}
			keep = append(keep, d)
		}
	}
	parked := len(dev.pool.parked)
	step.Release()
	if got := len(dev.pool.parked); got >= parked {
		t.Errorf("%d buffers parked after Release, %d before: want them free", got, parked)
	}
	runtime.KeepAlive(keep)
}

// TestCaptureAfterClose: a replay on a closed device returns ErrClosed, and
// releasing the step afterwards does nothing harmful.
func TestCaptureAfterClose(t *testing.T) {
	dev := newAutograd(t)
	r := newMLPRun(t, dev, 19, false)
	step := Capture(dev, r.step)
	x, y := mlpBatch(0, 4)
	for range 3 {
		if _, err := step.Run(x, y); err != nil {
			t.Fatal(err)
		}
	}
	dev.Close()
	if _, err := step.Run(x, y); !errors.Is(err, ErrClosed) {
		t.Errorf("a replay after Close: error %v, want ErrClosed", err)
	}
	step.Release()
	if _, err := step.Run(x, y); err == nil {
		t.Error("Run of a released step: no error")
	}
}

// TestCaptureRedoesUploadsInside captures a step that uploads a constant
// tensor inside it (a scale of the logits made on the CPU each step): a replay
// writes it again, before the commands that read it, so that a buffer the
// pool lent it and later to another tensor of the step holds it when
// read (the test clobbers it before each replay); the step equals the
// eager one bit for bit, and a replay makes three writes (the two inputs
// and the constant).
func TestCaptureRedoesUploadsInside(t *testing.T) {
	dev := testAutograd(t)
	weighted := func(r *mlpRun) StepFunc {
		return func(in []*autograd.Tensor) ([]*autograd.Tensor, error) {
			w, err := autograd.New([]float32{0.25, 0.5, 1, 2}, 1, 4).To(dev)
			if err != nil {
				return nil, err
			}
			loss := nn.CrossEntropyLossProbs(autograd.Mul(r.model.Forward(in[0]), w), in[1], nn.ClassOptions{})
			r.opt.ZeroGrad()
			if err := loss.Backward(); err != nil {
				return nil, err
			}
			return []*autograd.Tensor{loss}, r.opt.Step()
		}
	}
	eager, captured := newMLPRun(t, dev, 23, false), newMLPRun(t, dev, 23, false)
	eagerStep := weighted(eager)
	step := CaptureUnfused(dev, weighted(captured))
	defer step.Release()
	for i := range 4 {
		x, y := mlpBatch(i, 8)
		xd, _ := x.To(dev)
		yd, _ := y.To(dev)
		want, err := eagerStep([]*autograd.Tensor{xd, yd})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range step.progs {
			// Clobber what the step uploaded, as another tensor of the
			// step that the pool lent the same buffer would.
			for _, sg := range p.segs {
				for _, w := range sg.writes {
					if err := dev.d.queue.WriteBuffer(w.buf, 0, make([]byte, len(w.data))); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		w0, _, _ := dev.Uploaded()
		got, err := step.Run(x, y)
		if err != nil {
			t.Fatal(err)
		}
		w1, _, _ := dev.Uploaded()
		if i >= 2 && w1-w0 != 3 {
			t.Errorf("replay %d made %d writes, want 3 (two inputs, one constant)", i-1, w1-w0)
		}
		sameBits(t, "loss", hostValues(t, got...), hostValues(t, want...))
		sameBits(t, "parameters", hostValues(t, captured.model.Parameters()...), hostValues(t, eager.model.Parameters()...))
	}
}
