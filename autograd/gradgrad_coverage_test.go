package autograd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestEveryOpHasSecondOrderCheck reads the package's source: every exported
// function that returns a tensor computed from tensors (an op) must be
// called inside one of the second-order tests, so a new op cannot arrive
// without a CheckGradGrad case.
func TestEveryOpHasSecondOrderCheck(t *testing.T) {
	// Constructors and helpers that are not ops with a rule of their own.
	notOps := map[string]bool{
		"New": true, "New64": true, "Zeros": true, "Ones": true, "Full": true, "Scalar": true,
		"Scalar64": true, "ZerosLike": true, "Record": true, "RecordFirstOrder": true, "Apply": true,
		"Checkpoint": true, // first-order by design: TestCheckpoint
		"Empty":      true, // a constructor, for device kernels to write
	}
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]bool{}
	called := map[string]bool{}
	secondOrderTests := map[string]bool{"TestGradGradCore": true, "TestGradGradOps": true, "gradGradCases": true, "TestGradGradConvPoolPad": true,
		"TestGradGradTorchOps": true, "torchOpCases": true}
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if strings.HasSuffix(name, "_test.go") {
				if secondOrderTests[fn.Name.Name] {
					ast.Inspect(fn.Body, func(n ast.Node) bool {
						if id, ok := n.(*ast.Ident); ok {
							called[id.Name] = true
						}
						return true
					})
				}
				continue
			}
			if fn.Recv != nil || !fn.Name.IsExported() || notOps[fn.Name.Name] || fn.Type.Results == nil {
				continue
			}
			if star, ok := fn.Type.Results.List[0].Type.(*ast.StarExpr); ok {
				if id, ok := star.X.(*ast.Ident); ok && id.Name == "Tensor" {
					ops[fn.Name.Name] = true
				}
			}
		}
	}
	var missing []string
	for op := range ops {
		if !called[op] {
			missing = append(missing, op)
		}
	}
	sort.Strings(missing)
	if len(ops) < 60 {
		t.Fatalf("found only %d ops: the source scan is broken", len(ops))
	}
	if len(missing) > 0 {
		t.Fatalf("ops without a second-order check (add a CheckGradGrad case): %v", missing)
	}
}
