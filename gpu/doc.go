// Package gpu runs DiffLogic CA training on a GPU through WebGPU
// (github.com/cogentcore/webgpu, which links wgpu-native): a headless device,
// buffers, one WGSL kernel per file under shaders/, an Engine for bptt that
// keeps every activation of the rollout on the device, and AutogradDevice,
// which runs package autograd on the GPU.
//
// # Devices
//
// Open picks an adapter without a window: a discrete GPU first, then an
// integrated one, then a CPU implementation such as Mesa's lavapipe, and asks
// for that adapter's own limits rather than WebGPU's small defaults. When no
// adapter exists it returns ErrNoAdapter, whose message names the Debian
// packages that provide a Vulkan driver. lavapipe computes correct results
// slowly: use it to check correctness, never to measure speed.
//
// # Kernels and their CPU twins
//
// WGSL has no includes: the uniform structs and the helper functions that
// several kernels use live once under shaders/lib/, and a kernel whose first
// line asks for them ("// uses: broadcast, params") is compiled with those
// files appended (shaderSource, the one loader; TestHelpers keeps every
// helper declared once and every kernel's request exact).
//
// Every kernel (shaders/gate_forward.wgsl, say) has a Program method that
// records its dispatch (Program.GateForward) and a method of the same name
// (or, for a kernel several ops share, the methods of those ops) in the
// tests' Kernels interface, on host slices, implemented twice: by GPU, which
// runs it as a one-shot program, and by its CPU twin CPUTwin, which calls the
// very function the CPU engine runs (gates.ForwardSoftFM,
// dlca.GatherNeighbourhood, ...). Tests run one body against both; the
// harness lives in kernels_test.go and cputwin_test.go, outside the API. Kernels never use float atomics:
// gradients that several threads would add to one place are gathered
// through reverse indices instead, and reductions run in a fixed order, so
// results are deterministic.
//
// # Programs
//
// A Program is a recorded list of dispatches (bind groups and uniforms built
// once) that runs as one command submission; a Read waits for it. Every
// kernel is a grid-stride loop of 64-wide workgroups, so a dispatch uses no
// more workgroups than the device keeps busy. The Engine records three
// programs per grid shape, forward, backward and the optimiser's step, and
// per iteration uploads the batch, runs them (backward and step in one
// submission, or, straight-through, the step after the loss) and reads back
// the loss alone.
//
// # Layouts and arguments
//
// All data is float32 in the CPU engine's layouts (package dlca's fused
// step): states are [cells][C], and everything a gate layer reads or writes
// is feature-major, as in the gates package: x [In][rows] (shared by its
// groups) or [Groups*In][rows], y [Groups*Out][rows], logits
// [Groups, Out, 16]. Perception layers run over rows (channel, cell), that
// is row c*cells + cell. Uniform structs, declared in WGSL once in
// shaders/lib/params.wgsl, have explicit padding to 16 bytes and a size
// test. Program's methods take the buffers they write first, then those they
// read, then shapes (gonum's order, as in the gates package).
//
// # Autograd
//
// AutogradDevice runs package autograd's tensors and ops (one autograd, two
// devices): it implements autograd.Device and the kernel sets that autograd
// and optim ask a device for, one kernel per file under shaders/autograd/
// (broadcasting arithmetic, the unary table, comparisons and Where,
// reductions along an axis, softmax, ArgMax, SGD and Adam steps). The
// general ops' kernels live under shaders/ with the engine's and record
// through Ops, which a Program embeds and the autograd device wraps:
// matmul.wgsl (tiled, batched, broadcast), strided_copy.wgsl (Narrow, Cat,
// Pad), gather.wgsl and scatter_add.wgsl (the index ops, summing through a
// reverse index), im2col.wgsl and col2im.wgsl (convolutions, with the
// product), max_pool.wgsl, dropout_mask.wgsl (a counter-based stream the CPU
// draws alike), and the gate layer's own kernels behind gates.DeviceKernels.
// Backward rules are compositions of those ops, so the backward pass runs on
// the device too. Ops are recorded as the engine's programs are (commands
// of Device.newCommand, submitted by Device.submit) and submitted when a
// value is read back or a step ends; tensor buffers come from a pool that
// reclaims the buffers of unreachable tensors and allocates, as the engine
// does, through Device.allocate. The parity tests run every
// op on both devices (checkParity) and hold the GPU to the CPU's results.
//
// # Errors
//
// Device failures (no adapter, out of memory, a shader that does not compile)
// are returned as errors. A lost device shows as a failed readback ("the
// device may have been lost"); the Engine and the AutogradDevice keep that
// error and return it from every later call, never stale numbers. Programmer errors (mismatched lengths, a layer with
// no gates) panic with a message prefixed "gpu: ".
package gpu
