package gpu

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/cogentcore/webgpu/wgpu"

	"github.com/dlca/dlca/autograd"
)

// StepFunc is one step of work on an AutogradDevice, written as for eager
// execution: it takes the step's inputs (tensors on the device) and returns
// the tensors it wants read afterwards (the loss, say).
type StepFunc func(in []*autograd.Tensor) (out []*autograd.Tensor, err error)

// Step is a StepFunc captured for replay, as a CUDA Graph or jax.jit. The
// first Run with inputs of given shapes and dtypes runs the function
// eagerly (a warm-up: an optimiser creates its state, caches fill); the
// second runs it again, eagerly too, while keeping every command it
// records (pipelines, bind groups over its buffers, uniforms) as the
// shape's program; every later Run with inputs of the same shapes and
// dtypes writes them into the program's input buffers and submits the
// kept commands again, without running the function. Inputs of other
// shapes warm up and capture again (each shape keeps its own program).
//
//	step := gpu.Capture(dev, func(in []*autograd.Tensor) ([]*autograd.Tensor, error) {
//		loss := nn.CrossEntropyLossProbs(model.Forward(in[0]), in[1], nn.ClassOptions{})
//		opt.ZeroGrad()
//		if err := loss.Backward(); err != nil {
//			return nil, err
//		}
//		return []*autograd.Tensor{loss}, opt.Step()
//	})
//	defer step.Release()
//	for ... {
//		out, err := step.Run(x, y) // x, y: CPU tensors
//		...
//		if i%100 == 0 { loss, _ := out[0].To(autograd.CPU) ... }
//	}
//
// What a replay may change: the contents of the inputs; the constants an
// optimiser computes on the host each step (Adam's step count and bias
// corrections, a learning rate a schedule set: see optim.Replayer). What it
// may not: anything else the function decided on the host. Its control flow
// is frozen (no branch on a value read back; reading a value back inside
// the step is an error, ErrCaptureReadBack), as are host data it uploaded
// (a constant tensor, a gather's indices: labels must be an input tensor,
// such as one-hot targets, not a []int), random seeds (Dropout draws the
// same mask every replay) and the shapes of everything. The outputs, the
// parameters' gradients and every intermediate tensor are the program's
// buffers, overwritten by each replay: read or clone an output before the
// next Run. The buffers the program uses stay reserved for it (out of the
// pool) until Release.
//
// A Step is for one goroutine, like its device.
type Step struct {
	dev  *AutogradDevice
	fn   StepFunc
	fuse bool
	// epilogues lets fusion append elementwise kernels to a matrix
	// product's stores (linear + bias + activation in one kernel): on by
	// default, off on a software adapter, where it made the MNIST MLP step
	// 30% slower (docs/PERFORMANCE.md) while dispatches cost little.
	epilogues bool
	progs     map[string]*program
	warm      map[string]bool // shapes run once eagerly
	closed    bool
}

// ErrCaptureReadBack is the error of a captured step that reads a value
// back to the host while it is being captured: a replay could not redo the
// read, nor anything the host decided from it.
var ErrCaptureReadBack = errors.New("gpu: a captured step read a value back to the host (Item, To(autograd.CPU), ClipGradNorm's norm, ...); a replay cannot redo host work, so return the value as an output of the step and read it after Run, or run the step eagerly")

// Capture returns fn as a Step on dev whose chains of elementwise kernels
// are fused into one kernel each (see fuse.go): its numbers equal the eager
// step's within float32 rounding. CaptureUnfused keeps every kernel, for
// numbers equal bit for bit.
func Capture(dev *AutogradDevice, fn StepFunc) *Step {
	return &Step{dev: dev, fn: fn, fuse: true, epilogues: !dev.d.IsSoftware(), progs: map[string]*program{}, warm: map[string]bool{}}
}

// CaptureUnfused is Capture without fusion: replays equal the eager step
// bit for bit.
func CaptureUnfused(dev *AutogradDevice, fn StepFunc) *Step {
	s := Capture(dev, fn)
	s.fuse = false
	return s
}

// program is one captured shape of a Step: the input and output tensors,
// the recorded commands in segments, and what they own.
type program struct {
	inputs, outputs []*autograd.Tensor
	segs            []segment
	uniforms        []*wgpu.Buffer // owned: written at capture, rewritten by hooks
	hooks           []*hook
	pinned          []*wgpu.Buffer
	fused           []*wgpu.Buffer // uniforms of fused kernels
	dispatches      int
	byShader        map[string]int // dispatches per shader ("fused" for fusion's kernels)
}

// segment is the commands of one submission at capture, with the host
// writes (uploads inside the step) that the queue made before it: a replay
// redoes the writes, then submits the commands, in the captured order.
type segment struct {
	writes []hostWrite
	cmds   []command
	infos  []cmdInfo // parallel to cmds: what fusion needs to know
}

type hostWrite struct {
	buf  *wgpu.Buffer
	data []byte
}

// cmdInfo describes a recorded dispatch (shader empty for a clear).
type cmdInfo struct {
	shader  string
	params  any
	bufs    []*wgpu.Buffer
	uniform *wgpu.Buffer
	offset  uint64 // of its params in uniform: non-zero in a fused kernel's
	threads int
	dynamic bool // recorded by a hook: its uniform changes per replay
}

// hook is an update an optimiser registered with Replayed while the step
// was captured, and the dispatches it recorded then.
type hook struct {
	update func()
	slots  []cmdInfo
}

// capturing is an AutogradDevice's state while it captures a step.
type capturing struct {
	prog  *program
	cur   segment
	hook  *hook // the hook being captured, or nil
	err   error
	reads int // read-backs attempted
}

// replaying is an AutogradDevice's state while a replay reruns a hook.
type replaying struct {
	hook *hook
	next int
	err  error
}

// Run runs the step on in, CPU tensors (their data is written into the
// step's input buffers), capturing it first when no program has their
// shapes and dtypes, and returns its outputs: the program's tensors,
// valid until the next Run. An error from the function, a read-back inside
// it or a device error is returned, and a failed capture keeps no program.
func (s *Step) Run(in ...*autograd.Tensor) ([]*autograd.Tensor, error) {
	a := s.dev
	if s.closed {
		return nil, errors.New("gpu: Run of a released Step (capture the function again)")
	}
	for i, t := range in {
		if t == nil || t.Device() != autograd.CPU {
			return nil, fmt.Errorf("gpu: input %d of a captured step is %s; Run takes CPU tensors, whose data it writes into the step's input buffers", i, where(t))
		}
	}
	if a.cap != nil {
		return nil, errors.New("gpu: Run of a captured step inside the capture of another (capture the outer step's function eagerly, or run the inner one outside it)")
	}
	k := key(in)
	p, ok := s.progs[k]
	if !s.warm[k] {
		// The first step of a shape runs eagerly: the state an optimiser
		// or a module creates on first use (Adam's moments, zeroed by a
		// kernel) must not be created again by every replay.
		s.warm[k] = true
		return s.eager(in)
	}
	if !ok {
		var err error
		if p, err = s.capture(in); err != nil {
			return nil, err
		}
		s.progs[k] = p
		return p.outputs, a.Err()
	}
	return p.outputs, a.replay(p, in)
}

// where names a tensor's place for messages.
func where(t *autograd.Tensor) string {
	if t == nil {
		return "nil"
	}
	return "on " + t.Device().String()
}

// key names the shapes and dtypes of in.
func key(in []*autograd.Tensor) string {
	var b strings.Builder
	for _, t := range in {
		fmt.Fprintf(&b, "%v%v;", t.DType(), t.Shape())
	}
	return b.String()
}

// Programs returns how many shapes the step has captured.
func (s *Step) Programs() int { return len(s.progs) }

// Dispatches returns the kernel dispatches of one replay of the step for
// inputs of in's shapes, or 0 when none is captured.
func (s *Step) Dispatches(in ...*autograd.Tensor) int {
	if p, ok := s.progs[key(in)]; ok {
		return p.dispatches
	}
	return 0
}

// DispatchesByShader returns how many dispatches of one replay of the step
// for inputs of in's shapes each shader makes (fusion's generated kernels
// counted together under "fused"), or nil when none is captured: what a
// replay is made of, for finding the dispatches to cut.
func (s *Step) DispatchesByShader(in ...*autograd.Tensor) map[string]int {
	p, ok := s.progs[key(in)]
	if !ok {
		return nil
	}
	return maps.Clone(p.byShader)
}

// Release frees the step's programs: their bind groups and uniforms, and
// the buffers they reserved go back to the pool. Its outputs stay readable
// until the pool lends their buffers again. Releasing twice does nothing.
func (s *Step) Release() {
	if s.closed {
		return
	}
	s.closed = true
	for _, p := range s.progs {
		s.dev.releaseProgram(p)
	}
	s.progs = nil
}

// eager runs fn once on in without capturing.
func (s *Step) eager(in []*autograd.Tensor) ([]*autograd.Tensor, error) {
	dev := make([]*autograd.Tensor, len(in))
	for i, t := range in {
		var err error
		if dev[i], err = t.To(s.dev); err != nil {
			return nil, fmt.Errorf("gpu: input %d of a captured step: %w", i, err)
		}
	}
	out, err := s.fn(dev)
	if err == nil {
		err = s.dev.Sync()
	}
	return out, err
}

// capture runs fn once on in, recording a program.
func (s *Step) capture(in []*autograd.Tensor) (*program, error) {
	a := s.dev
	a.submit() // eager work recorded before belongs to no program
	p := &program{}
	for i, t := range in {
		d, err := t.To(a)
		if err != nil {
			return nil, fmt.Errorf("gpu: input %d of a captured step: %w", i, err)
		}
		p.inputs = append(p.inputs, d)
	}
	a.cap = &capturing{prog: p}
	defer func() {
		// A panic in fn leaves the device eager again (its program is
		// dropped); the normal path has cleared these already.
		a.cap, a.rep = nil, nil
	}()
	out, err := s.fn(slices.Clone(p.inputs))
	a.submit() // ends the last segment
	c := a.cap
	a.cap = nil
	if err == nil && c.reads > 0 {
		err = ErrCaptureReadBack
	}
	if err == nil {
		err = c.err
	}
	if err == nil {
		err = a.Err()
	}
	for i, t := range out {
		if err != nil {
			break
		}
		if t == nil || t.Device() != autograd.Device(a) {
			err = fmt.Errorf("gpu: output %d of a captured step is %s; a step's outputs must be tensors on its device", i, where(t))
		}
	}
	if err != nil {
		a.releaseProgram(p)
		return nil, fmt.Errorf("gpu: capturing a step: %w", err)
	}
	p.outputs = out
	if s.fuse {
		a.fuse(p, s.epilogues) // fuse.go
	}
	a.pinProgram(p)
	return p, nil
}

// replay writes in into p's inputs, reruns its hooks and submits its
// segments.
func (a *AutogradDevice) replay(p *program, in []*autograd.Tensor) error {
	if a.failed() {
		return a.err
	}
	a.submit() // eager work recorded before the step runs before it
	for i, t := range in {
		if err := write(a, storageOf(p.inputs[i]).buffer(), t.Data32()); err != nil {
			a.fail(fmt.Errorf("gpu: writing input %d of a captured step: %w", i, err))
			return a.err
		}
	}
	for _, h := range p.hooks {
		r := &replaying{hook: h}
		a.rep = r
		h.update()
		a.rep = nil
		if r.err == nil && r.next != len(h.slots) {
			r.err = fmt.Errorf("an optimiser's update recorded %d dispatches at capture and %d at replay", len(h.slots), r.next)
		}
		if r.err != nil {
			return fmt.Errorf("gpu: replaying a captured step: %w (capture the step again)", r.err)
		}
	}
	var cmds []command
	flush := func() error {
		if len(cmds) == 0 {
			return nil
		}
		err := a.d.submit(cmds)
		cmds = cmds[:0]
		if err != nil {
			return err
		}
		a.rec.submissions++
		return nil
	}
	for _, sg := range p.segs {
		if len(sg.writes) > 0 {
			if err := flush(); err != nil {
				a.fail(fmt.Errorf("gpu: submitting a captured step: %w", err))
				return a.err
			}
			for _, w := range sg.writes {
				a.uploads++
				a.uploaded += int64(len(w.data))
				if err := a.d.queue.WriteBuffer(w.buf, 0, w.data); err != nil {
					a.fail(fmt.Errorf("gpu: rewriting a captured step's upload: %v", err))
					return a.err
				}
			}
		}
		cmds = append(cmds, sg.cmds...)
	}
	if err := flush(); err != nil {
		a.fail(fmt.Errorf("gpu: submitting a captured step: %w", err))
	}
	a.rec.dispatches += p.dispatches
	return a.Err()
}

// storageOf returns t's device storage.
func storageOf(t *autograd.Tensor) *storage { return t.Storage().(*storage) }

// Replayed runs update now and, while a step is being captured, keeps it
// to rerun before every replay (see optim.Replayer): the dispatches it
// records now are marked as its own, and at a replay its kernels rewrite
// their uniforms instead of recording.
func (a *AutogradDevice) Replayed(update func()) {
	c := a.cap
	if c == nil || c.hook != nil {
		update()
		return
	}
	h := &hook{update: update}
	c.hook = h
	update()
	c.hook = nil
	c.prog.hooks = append(c.prog.hooks, h)
}

// captured notes a dispatch recorded while capturing (see record).
func (c *capturing) captured(info cmdInfo) {
	if c.hook != nil {
		info.dynamic = true
		c.hook.slots = append(c.hook.slots, info)
	}
	c.cur.infos = append(c.cur.infos, info)
}

// refresh is a dispatch during a replay's hook: it rewrites the uniform of
// the dispatch the hook recorded at capture in the same place.
func (a *AutogradDevice) refresh(shader string, threads int, params any, bufs []*wgpu.Buffer) {
	r := a.rep
	if r.err != nil {
		return
	}
	if r.next >= len(r.hook.slots) {
		r.err = fmt.Errorf("an optimiser's update recorded more dispatches at replay than at capture")
		return
	}
	sl := r.hook.slots[r.next]
	r.next++
	if sl.shader != shader || sl.threads != threads || !slices.Equal(sl.bufs, bufs) {
		r.err = fmt.Errorf("an optimiser's update dispatched %s at replay where it dispatched %s over other buffers at capture", shader, sl.shader)
		return
	}
	if err := a.d.queue.WriteBuffer(sl.uniform, sl.offset, encodeParams(shader, params)); err != nil {
		r.err = fmt.Errorf("writing the params of %s: %v", shader, err)
	}
}

// endSegment moves the commands just submitted, their uniforms and the
// writes before them into the program being captured (instead of
// releasing and recycling them).
func (c *capturing) endSegment(cmds []command, uniforms []*wgpu.Buffer) {
	c.cur.cmds = slices.Clone(cmds)
	if len(c.cur.cmds) != len(c.cur.infos) {
		panic("gpu: a captured segment's commands and their descriptions differ in number")
	}
	c.prog.uniforms = append(c.prog.uniforms, uniforms...)
	if len(c.cur.cmds) > 0 || len(c.cur.writes) > 0 {
		c.prog.segs = append(c.prog.segs, c.cur)
	}
	c.cur = segment{}
}

// pinProgram counts p's dispatches and reserves every buffer it binds,
// clears or writes (see pool.pin).
func (a *AutogradDevice) pinProgram(p *program) {
	seen := map[*wgpu.Buffer]bool{}
	add := func(b *wgpu.Buffer) {
		if b != nil && !seen[b] {
			seen[b] = true
			p.pinned = append(p.pinned, b)
		}
	}
	for _, sg := range p.segs {
		for _, w := range sg.writes {
			add(w.buf)
		}
		for i, c := range sg.cmds {
			if c.clear != nil {
				add(c.clear.buf)
				continue
			}
			p.dispatches++
			name := sg.infos[i].shader
			if strings.HasPrefix(name, fusedPrefix) {
				name = "fused"
			}
			if p.byShader == nil {
				p.byShader = map[string]int{}
			}
			p.byShader[name]++
			for _, b := range sg.infos[i].bufs {
				add(b)
			}
		}
	}
	for _, t := range p.inputs {
		add(storageOf(t).buf)
	}
	a.pool.pin(p.pinned)
}

// releaseProgram frees p's bind groups and uniforms and unpins its buffers.
func (a *AutogradDevice) releaseProgram(p *program) {
	if a.d.dev == nil {
		return // the device is gone, and everything with it
	}
	for _, sg := range p.segs {
		releaseGroups(sg.cmds)
	}
	for _, u := range append(p.uniforms, p.fused...) {
		u.Release()
	}
	a.pool.unpin(p.pinned)
	*p = program{}
}
