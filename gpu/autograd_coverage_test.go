package gpu

import (
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/nn"
)

// noGPUParity lists the exported functions of autograd and autograd/nn that
// return a tensor but need no parity test on the GPU, each with the reason.
// Every other op must be called in a GPU parity test (a file
// autograd_*_test.go of this package): TestEveryOpHasGPUParity.
var noGPUParity = map[string]string{
	// Constructors: CPU tensors, moved with To.
	"New": "constructor", "New64": "constructor", "Zeros": "constructor", "Ones": "constructor",
	"Full": "constructor", "Scalar": "constructor", "Scalar64": "constructor",
	"ZerosLike": "constructor (on its argument's device, as every op's gradient uses it)",
	"Empty":     "constructor for a device's kernels to write",
	// Custom ops run the caller's forward and backward, on whatever device
	// those use.
	"Record": "custom-op machinery", "RecordFirstOrder": "custom-op machinery", "Apply": "custom-op machinery",
	"Checkpoint": "runs its function again in the backward pass, on that function's device",
}

// TestEveryOpHasGPUParity reads the source of autograd and autograd/nn:
// every exported function that returns a tensor (an op), and every layer
// (a type with a Forward method), must be called in one of this package's
// GPU parity tests or be listed in noGPUParity with its reason, so that no
// op arrives without a device path held to the CPU.
func TestEveryOpHasGPUParity(t *testing.T) {
	// A test binary run outside the source tree (scripts/gpu-check's bundle
	// on a GPU machine) has no source to read; the scan is about the source,
	// not the device, so it is checked wherever go test runs in a checkout.
	for _, pattern := range []string{"../autograd/*.go", "../autograd/nn/*.go", "autograd_*_test.go"} {
		if names, _ := filepath.Glob(pattern); len(names) == 0 {
			t.Skipf("skipping: no %s beside this test binary (it runs outside the source tree); this test scans the source and runs under go test in a checkout", pattern)
		}
	}
	ops := map[string]bool{}
	for _, dir := range []string{"../autograd", "../autograd/nn"} {
		for _, f := range parseGo(t, dir+"/*.go", false) {
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				switch {
				case !ok || !fn.Name.IsExported() || fn.Type.Results == nil:
				case fn.Recv == nil && returnsTensor(fn.Type.Results.List[0].Type):
					ops[fn.Name.Name] = true
				case fn.Recv != nil && fn.Name.Name == "Forward":
					ops[receiverType(fn)] = true
				}
			}
		}
	}
	called := map[string]bool{}
	for _, f := range parseGo(t, "autograd_*_test.go", true) {
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if pkg, ok := sel.X.(*ast.Ident); ok && (pkg.Name == "autograd" || pkg.Name == "nn") {
					name := sel.Sel.Name
					called[name] = true
					if layer, ok := strings.CutPrefix(name, "New"); ok { // NewBatchNorm2d builds a BatchNorm
						called[strings.TrimSuffix(strings.TrimSuffix(layer, "1d"), "2d")] = true
					}
				}
			}
			return true
		})
	}
	var missing []string
	for op := range ops {
		if !called[op] && noGPUParity[op] == "" {
			missing = append(missing, op)
		}
	}
	slices.Sort(missing)
	if len(ops) < 100 {
		t.Fatalf("found only %d ops: the source scan is broken", len(ops))
	}
	if len(missing) > 0 {
		t.Fatalf("ops and layers without a GPU parity test (add a case to an autograd_*_test.go, or an exemption with its reason to noGPUParity): %v", missing)
	}
}

// parseGo parses the Go files matching pattern, test files only or none.
func parseGo(t *testing.T, pattern string, tests bool) []*ast.File {
	t.Helper()
	names, err := filepath.Glob(pattern)
	if err != nil || len(names) == 0 {
		t.Fatalf("no Go files match %s: %v", pattern, err)
	}
	var files []*ast.File
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") != tests {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// returnsTensor reports whether typ is *Tensor or *autograd.Tensor.
func returnsTensor(typ ast.Expr) bool {
	star, ok := typ.(*ast.StarExpr)
	if !ok {
		return false
	}
	switch x := star.X.(type) {
	case *ast.Ident:
		return x.Name == "Tensor"
	case *ast.SelectorExpr:
		return x.Sel.Name == "Tensor"
	}
	return false
}

// receiverType returns the name of fn's receiver's type.
func receiverType(fn *ast.FuncDecl) string {
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	return typ.(*ast.Ident).Name
}

// TestMoreOpsParity holds the ops that the other parity tests do not call
// (compositions, the options forms, pooling, the cumulative ops) to the CPU.
func TestMoreOpsParity(t *testing.T) {
	first := func(x *autograd.Tensor, _ []int) *autograd.Tensor { return x }
	pool2 := autograd.Pool2dConfig{Kernel: [2]int{3, 2}, Stride: [2]int{2, 1}, Padding: [2]int{1, 1}}
	pool1 := autograd.Pool1dConfig{Kernel: 3, Stride: 2, Padding: 1}
	idx := []int{4, 0, 2, 2, 6}
	targets := []int{1, 0, 4, 3, 2, 2, 0}
	checkCases(t, tolReduce, []opCase{
		{"SubScalar", [][]int{{65}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.SubScalar(xs[0], 0.5) }},
		{"RSubScalar", [][]int{{65}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.RSubScalar(xs[0], 0.5) }},
		{"Elu", [][]int{{63}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Elu(xs[0], 0.7) }},
		{"Selu", [][]int{{63}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Selu(xs[0]) }},
		{"Mish", [][]int{{63}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Mish(xs[0]) }},
		{"Hardswish", [][]int{{1000}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Hardswish(xs[0]) }},
		{"Hardtanh", [][]int{{1000}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Hardtanh(xs[0], -1, 0.5) }},
		{"SoftplusWith", [][]int{{63}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.SoftplusWith(xs[0], 2, 3) }},
		{"Flatten", [][]int{{3, 1, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Flatten(xs[0]) }},
		{"Squeeze", [][]int{{3, 1, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Squeeze(xs[0], 1) }},
		{"Dot", [][]int{{65}, {65}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Dot(xs[0], xs[1]) }},
		{"Outer", [][]int{{7}, {63}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Outer(xs[0], xs[1]) }},
		{"Norm", [][]int{{7, 63}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Norm(xs[0], 2, false, 1) }},
		{"Norm1", [][]int{{7, 63}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Norm(xs[0], 1, true) }},
		{"MaxDim", [][]int{{7, 63}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return first(autograd.MaxDim(xs[0], 1, true)) }},
		{"MinDim", [][]int{{7, 63}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return first(autograd.MinDim(xs[0], 0, false)) }},
		{"GatherShaped", [][]int{{3, 7}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return autograd.GatherShaped(xs[0], 1, []int{6, 0, 2, 2, 1, 3}, []int{3, 2})
		}},
		{"ScatterAddShaped", [][]int{{3, 7}, {3, 2}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return autograd.ScatterAddShaped(xs[0], 1, []int{6, 0, 2, 2, 1, 6}, []int{3, 2}, xs[1])
		}},
		{"IndexAddAlpha", [][]int{{7, 3}, {5, 3}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return autograd.IndexAddAlpha(xs[0], 0, idx, xs[1], -0.5)
		}},
		{"MaxPool2dWith", [][]int{{2, 3, 7, 6}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return first(autograd.MaxPool2dWith(xs[0], pool2))
		}},
		{"MaxPool1d", [][]int{{2, 3, 65}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return first(autograd.MaxPool1d(xs[0], pool1)) }},
		{"AvgPool2d", [][]int{{2, 3, 7, 6}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.AvgPool2d(xs[0], 3, 2, 1) }},
		{"AvgPool2dWith", [][]int{{2, 3, 7, 6}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			c := pool2
			c.Dilation = [2]int{}
			c.ExcludePad, c.CeilMode = true, true
			return autograd.AvgPool2dWith(xs[0], c)
		}},
		{"AvgPool1d", [][]int{{2, 3, 65}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.AvgPool1d(xs[0], pool1) }},
		{"Cumsum", [][]int{{3, 65}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Cumsum(xs[0], 1) }},
		{"Cumsum", [][]int{{7, 1, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Cumsum(xs[0], 0) }},
		{"Cumprod", [][]int{{3, 7}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Cumprod(xs[0], 1) }},
		{"Cumprod", [][]int{{63, 2}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return autograd.Cumprod(autograd.AddScalar(autograd.MulScalar(xs[0], 0.05), 1), 0)
		}},
		{"CumprodZeros", [][]int{{3, 9}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Cumprod(withZeros(xs[0]), 1) }},
		{"ProdZeros", [][]int{{9, 3}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Prod(withZeros(xs[0]), false, 0) }},
		{"Cumsum", [][]int{{0, 3}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Cumsum(xs[0], 0) }},
		{"Cumprod", [][]int{{1}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Cumprod(xs[0], 0) }},
		{"Prod", [][]int{{3, 7}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Prod(xs[0], false, 1) }},
		{"Prod", [][]int{{5, 3, 2}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Prod(xs[0], true, 0, 2) }},
		{"Prod", [][]int{{2, 0}}, func(xs ...*autograd.Tensor) *autograd.Tensor { return autograd.Prod(xs[0], false, 1) }},
		{"BCELoss", [][]int{{7, 5}, {7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return nn.BCELoss(autograd.Sigmoid(xs[0]), autograd.Sigmoid(xs[1]), nn.ReduceMean)
		}},
		{"BCEWithLogitsLoss", [][]int{{7, 5}, {7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return nn.BCEWithLogitsLoss(xs[0], autograd.Sigmoid(xs[1]), nn.ReduceSum)
		}},
		{"NLLLoss", [][]int{{7, 5}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return nn.NLLLoss(autograd.LogSoftmax(xs[0], 1), targets, nn.ReduceMean)
		}},
		{"Dropout", [][]int{{7, 65}}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			return autograd.Dropout(xs[0], 0.3, true, rand.New(rand.NewPCG(5, 6)))
		}},
	})
}

// withZeros returns x with its elements below -1 set to zero (a mask, so
// the gradient reaches the others): the cumulative products' and Prod's
// gradients must stay exact where the input holds zeros, one or several.
func withZeros(x *autograd.Tensor) *autograd.Tensor {
	return autograd.Mul(x, autograd.Ge(x, autograd.Scalar(-1)))
}

// TestModulesParity runs every layer of autograd/nn on both devices, moved
// there with nn.To from the same initial weights, and compares the output
// and the input's gradient (the parameters' gradients are those of the ops
// the layers are made of, held to the CPU above).
func TestModulesParity(t *testing.T) {
	rng := func() *rand.Rand { return rand.New(rand.NewPCG(3, 4)) }
	f32 := autograd.Float32
	conv2 := autograd.Conv2dConfig{Stride: [2]int{1, 1}, Padding: [2]int{1, 1}}
	modules := []struct {
		name  string
		shape []int
		make  func() nn.Module
	}{
		{"Linear", []int{7, 63}, func() nn.Module { return nn.NewLinear(63, 5, true, f32, rng()) }},
		{"Conv2d", []int{2, 3, 7, 6}, func() nn.Module { return nn.NewConv2d(3, 4, 3, conv2, true, f32, rng()) }},
		{"Conv1d", []int{2, 3, 65}, func() nn.Module {
			return nn.NewConv1d(3, 4, 5, autograd.Conv1dConfig{Stride: 2, Padding: 2}, false, f32, rng())
		}},
		{"BatchNorm2d", []int{4, 3, 5, 5}, func() nn.Module {
			return nn.NewBatchNorm2d(3, nn.BatchNormConfig{Eps: 1e-5, Momentum: 0.1, Affine: true, TrackRunningStats: true}, f32)
		}},
		{"BatchNorm1d", []int{7, 5}, func() nn.Module {
			return nn.NewBatchNorm1d(5, nn.BatchNormConfig{Eps: 1e-5, Momentum: 0.1}, f32)
		}},
		{"LayerNorm", []int{7, 63}, func() nn.Module { return nn.NewLayerNorm([]int{63}, 1e-5, true, f32) }},
		{"GroupNorm", []int{2, 6, 5}, func() nn.Module { return nn.NewGroupNorm(3, 6, 1e-5, true, f32) }},
		{"Sequential", []int{2, 3, 8, 8}, func() nn.Module {
			return nn.NewSequential(nn.MaxPool2d{Kernel: 2}, nn.Func(autograd.Relu), nn.AvgPool2d{Kernel: 3, Stride: 1, Padding: 1},
				nn.Func(autograd.Flatten), nn.NewDropout(0.25, rng()))
		}},
	}
	var cases []opCase
	for _, m := range modules {
		cases = append(cases, opCase{m.name, [][]int{m.shape}, func(xs ...*autograd.Tensor) *autograd.Tensor {
			layer := m.make()
			if err := nn.To(layer, xs[0].Device()); err != nil {
				t.Fatal(err)
			}
			return layer.Forward(xs[0])
		}})
	}
	checkCases(t, tolReduce, cases)
}

// TestBatchNormRunningStatsParity trains a BatchNorm2d on two batches on
// both devices: the running statistics (updated on the device, the count on
// the CPU) and the evaluation-mode output must agree.
func TestBatchNormRunningStatsParity(t *testing.T) {
	x := randTensor(1, -2, 3, 4, 3, 5, 5)
	var stats [2][]*autograd.Tensor
	for i, dev := range []autograd.Device{autograd.CPU, testAutograd(t)} {
		bn := nn.NewBatchNorm2d(3, nn.DefaultBatchNorm(), autograd.Float32)
		if err := nn.To(bn, dev); err != nil {
			t.Fatal(err)
		}
		xd, err := x.To(dev)
		if err != nil {
			t.Fatal(err)
		}
		bn.Forward(xd)
		bn.Forward(autograd.MulScalar(xd, 2))
		bn.Training = false
		stats[i] = []*autograd.Tensor{toCPU(t, bn.RunningMean), toCPU(t, bn.RunningVar), toCPU(t, bn.Forward(xd))}
		if got := bn.NumBatchesTracked.At(0); got != 2 {
			t.Fatalf("%v: %v batches tracked, want 2", dev, got)
		}
	}
	for i, what := range []string{"running mean", "running variance", "evaluation output"} {
		closeTo(t, what, stats[1][i].Data32(), stats[0][i].Data32(), tolReduce)
	}
}
