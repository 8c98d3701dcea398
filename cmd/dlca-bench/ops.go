package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
	"github.com/dlca/dlca/autograd/optim"
	"github.com/dlca/dlca/cmd/internal/mnist"
	"github.com/dlca/dlca/gpu"
)

// opBench is one autograd op timed on the CPU (the autograd op itself) and
// on the GPU (its kernels recorded once into a Program, which runs as one
// submission per call, or a training step through autograd's GPU device).
type opBench struct {
	name  string
	flops float64 // floating-point operations of one call
	cpu   func() error
	// gpu prepares the op on d.
	gpu func(d *gpu.Device) (gpuRun, error)
}

// gpuRun is an op ready to run on the GPU.
type gpuRun struct {
	call func() error // one call, waiting for its result with a small read-back
	// dispatches and submissions of one call.
	dispatches, submissions int
	release                 func()
	// note, when not empty, is printed under the row (the MLP step's
	// read-backs and uploads).
	note string
}

// mlpBatch is the batch of the timed MLP step: MNIST's default.
const mlpBatch = 128

// opBenches returns the ops named in list (comma-separated: matmul,
// conv2d, mlp): an n×n by n×n matrix product, a 3×3 convolution of 64 to
// 64 channels over batch images of size×size, padding 1 (a CNN's middle
// layer), and one Adam step (forward, backward, update) of cmd/mnist's
// 784-128-10 MLP on a batch of 128.
func opBenches(list string, n, batch, size int, seed uint64) ([]opBench, error) {
	rng := rand.New(rand.NewPCG(seed, 2))
	random := func(shape ...int) *autograd.Tensor {
		t := autograd.Zeros(autograd.Float32, shape...)
		for i := range t.Data32() {
			t.Data32()[i] = float32(rng.NormFloat64())
		}
		return t
	}
	var out []opBench
	for _, name := range strings.Split(list, ",") {
		switch strings.TrimSpace(name) {
		case "", "none":
		case "matmul":
			a, b := random(n, n), random(n, n)
			spec := gpu.MatMulSpec{AShape: []int{n, n}, BShape: []int{n, n}}
			out = append(out, opBench{
				name:  fmt.Sprintf("matmul %dx%dx%d", n, n, n),
				flops: 2 * float64(n) * float64(n) * float64(n),
				cpu:   func() error { autograd.MatMul(a, b); return nil },
				gpu: func(d *gpu.Device) (gpuRun, error) {
					return programRun(d, nil)(record(d, [][]float32{a.Data32(), b.Data32()}, n*n, func(p *gpu.Program, c *gpu.Buffer, in []*gpu.Buffer) error {
						return p.MatMul(c, in[0], in[1], spec)
					}))
				},
			})
		case "conv2d":
			const channels, k = 64, 3
			cfg := autograd.Conv2dConfig{Padding: [2]int{1, 1}}
			x, w := random(batch, channels, size, size), random(channels, channels, k, k)
			g := autograd.Conv2dGeometry(x.Shape(), w.Shape(), cfg)
			out = append(out, opBench{
				name:  fmt.Sprintf("conv2d %dx%dx%dx%d, %dx%dx%dx%d", batch, channels, size, size, channels, channels, k, k),
				flops: 2 * float64(g.N*g.O*g.OutH*g.OutW) * float64(g.C/g.Groups*g.KH*g.KW),
				cpu:   func() error { autograd.Conv2d(x, w, nil, cfg); return nil },
				gpu: func(d *gpu.Device) (gpuRun, error) {
					cols, err := d.NewBuffer("cols", gpu.ColsLen(g))
					if err != nil {
						return gpuRun{}, err
					}
					return programRun(d, cols)(record(d, [][]float32{x.Data32(), w.Data32()}, g.N*g.O*g.OutH*g.OutW, func(p *gpu.Program, y *gpu.Buffer, in []*gpu.Buffer) error {
						return p.Conv2d(y, in[0], in[1], cols, g)
					}))
				},
			})
		case "mlp":
			x, labels := random(mlpBatch, 784), make([]int, mlpBatch)
			for i := range labels {
				labels[i] = rng.IntN(10)
			}
			cpuStep, err := mlpStep(autograd.CPU, x, labels, seed)
			if err != nil {
				return nil, err
			}
			out = append(out, opBench{
				name: fmt.Sprintf("mlp step 784-128-10, batch %d", mlpBatch),
				// The forward's products, and twice as much for the backward's.
				flops: 3 * 2 * mlpBatch * (784*128 + 128*10),
				cpu:   cpuStep,
				gpu: func(d *gpu.Device) (gpuRun, error) {
					a := d.Autograd()
					step, err := mlpStep(a, x, labels, seed)
					if err == nil {
						err = step() // creates Adam's moments, which later steps do not
					}
					if err != nil {
						a.Close()
						return gpuRun{}, err
					}
					d0, s0 := a.Counts()
					r0 := a.ReadBacks()
					w0, b0, _ := a.Uploaded()
					if err := step(); err != nil {
						a.Close()
						return gpuRun{}, err
					}
					d1, s1 := a.Counts()
					w1, b1, _ := a.Uploaded()
					note := fmt.Sprintf("per step: %d read-back (the loss), %d uploads of %d bytes (eager: the batch stays on the device)", a.ReadBacks()-r0, w1-w0, b1-b0)
					return gpuRun{call: step, dispatches: d1 - d0, submissions: s1 - s0, release: a.Close, note: note}, nil
				},
			})
			out = append(out, mlpCapturedBenches(x, labels, seed)...)
		default:
			return nil, fmt.Errorf("unknown op %q in -ops (use matmul, conv2d, mlp or none)", name)
		}
	}
	return out, nil
}

// mlpStep returns one Adam step of cmd/mnist's MLP (the same weights for
// the same seed) on dev, with softmax cross-entropy on x and labels, which
// waits for its loss.
func mlpStep(dev autograd.Device, x *autograd.Tensor, labels []int, seed uint64) (func() error, error) {
	m := mnist.NewMLP(autograd.Float32, rand.New(rand.NewPCG(seed, 3)))
	if err := nn.To(m, dev); err != nil {
		return nil, err
	}
	xd, err := x.To(dev)
	if err != nil {
		return nil, err
	}
	opt := optim.NewAdam(m.Parameters(), optim.DefaultAdam())
	return func() error {
		opt.ZeroGrad()
		loss := nn.CrossEntropyLoss(m.Forward(xd), labels, nn.ReduceMean)
		if err := loss.Backward(); err != nil {
			return err
		}
		if err := opt.Step(); err != nil {
			return err
		}
		_, err := loss.To(autograd.CPU)
		return err
	}, nil
}

// programRun returns the gpuRun of a recorded program (record's results),
// which runs as one submission and waits by reading out back; release also
// frees scratch, when not nil.
func programRun(d *gpu.Device, scratch *gpu.Buffer) func(*gpu.Program, *gpu.Buffer, func(), error) (gpuRun, error) {
	return func(p *gpu.Program, out *gpu.Buffer, release func(), err error) (gpuRun, error) {
		free := func() {
			if release != nil {
				release()
			}
			if scratch != nil {
				scratch.Release()
			}
		}
		if err != nil {
			free()
			return gpuRun{}, err
		}
		call := func() error {
			if err := p.Run(); err != nil {
				return err
			}
			_, err := gpu.Read[float32](d, out, min(out.N, 1))
			return err
		}
		return gpuRun{call: call, dispatches: p.Dispatches(), submissions: 1, release: free}, nil
	}
}

// record uploads inputs, allocates an output of n elements and records
// the program rec builds.
func record(d *gpu.Device, inputs [][]float32, n int, rec func(p *gpu.Program, out *gpu.Buffer, in []*gpu.Buffer) error) (*gpu.Program, *gpu.Buffer, func(), error) {
	var bufs []*gpu.Buffer
	release := func() {
		for _, b := range bufs {
			b.Release()
		}
	}
	for _, data := range inputs {
		b, err := gpu.NewBufferFrom(d, "input", data)
		if err != nil {
			release()
			return nil, nil, nil, err
		}
		bufs = append(bufs, b)
	}
	out, err := d.NewBuffer("output", n)
	if err != nil {
		release()
		return nil, nil, nil, err
	}
	p := d.NewProgram()
	if err := rec(p, out, bufs); err != nil {
		p.Release()
		out.Release()
		release()
		return nil, nil, nil, err
	}
	return p, out, func() { p.Release(); out.Release(); release() }, nil
}

// benchOps prints one row per op and device: milliseconds per call,
// GFLOP/s, and on the GPU the kernel dispatches and command submissions of
// one call (each timed call also waits with one read-back).
func benchOps(ops []opBench, engines string, o options, stdout io.Writer) error {
	if len(ops) == 0 {
		return nil
	}
	var d *gpu.Device
	if strings.Contains(engines, "gpu") {
		var err error
		if d, err = gpu.Open(); err != nil {
			return err
		}
		defer d.Close()
		if d.IsSoftware() {
			fmt.Fprintln(stdout, "per-op gpu rows come from a software adapter: they say nothing about a GPU's speed")
		}
	}
	fmt.Fprintf(stdout, "%-34s %-6s %10s %9s %11s %12s\n", "op", "device", "ms/op", "GFLOP/s", "dispatches", "submissions")
	for _, op := range ops {
		if strings.Contains(engines, "cpu") && op.cpu != nil {
			ms, err := timeCalls(o, op.cpu)
			if err != nil {
				return fmt.Errorf("%s on the CPU: %v", op.name, err)
			}
			fmt.Fprintf(stdout, "%-34s %-6s %10.2f %9.1f %11s %12s\n", op.name, "cpu", ms, op.flops/ms/1e6, "-", "-")
		}
		if op.gpu == nil {
			continue
		}
		if d == nil {
			continue
		}
		r, err := op.gpu(d)
		if err != nil {
			return fmt.Errorf("%s on the GPU: %v", op.name, err)
		}
		ms, err := timeCalls(o, r.call)
		r.release()
		if err != nil {
			return fmt.Errorf("%s on the GPU: %v", op.name, err)
		}
		fmt.Fprintf(stdout, "%-34s %-6s %10.2f %9.1f %11d %12d\n", op.name, "gpu", ms, op.flops/ms/1e6, r.dispatches, r.submissions)
		if r.note != "" {
			fmt.Fprintf(stdout, "%-34s %s\n", "", r.note)
		}
	}
	return nil
}

// timeCalls returns the mean milliseconds of o.iterations calls of f after
// o.warmup untimed ones; a failing call stops it with its error.
func timeCalls(o options, f func() error) (float64, error) {
	var total time.Duration
	for i := range o.warmup + o.iterations {
		start := time.Now()
		if err := f(); err != nil {
			return 0, err
		}
		if i >= o.warmup {
			total += time.Since(start)
		}
	}
	return float64(total.Microseconds()) / 1000 / float64(o.iterations), nil
}
