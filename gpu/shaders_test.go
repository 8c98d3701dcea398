package gpu

import (
	"fmt"
	"io/fs"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

var bindingDecl = regexp.MustCompile(`@binding\((\d+)\)`)

// allShaders lists every embedded kernel: the automaton's under shaders/ and
// autograd's under shaders/autograd/.
func allShaders(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, pattern := range []string{"shaders/*.wgsl", "shaders/autograd/*.wgsl"} {
		m, err := fs.Glob(shaders, pattern)
		if err != nil || len(m) == 0 {
			t.Fatalf("no shaders embedded as %s: %v", pattern, err)
		}
		names = append(names, m...)
	}
	return names
}

// TestShaderHeaders checks that every kernel file opens with its own name and
// documents its entry point, workgroup size and every binding it declares.
func TestShaderHeaders(t *testing.T) {
	names := allShaders(t)
	for _, path := range names {
		src, _ := shaders.ReadFile(path)
		text := string(src)
		name := strings.TrimPrefix(path, "shaders/")
		if !strings.HasPrefix(text, "// "+name+":") {
			t.Errorf("%s does not start with %q", path, "// "+name+":")
		}
		for _, want := range []string{"Entry point: main", "workgroup size 64", "@workgroup_size(64)"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: no %q", path, want)
			}
		}
		for _, m := range bindingDecl.FindAllStringSubmatch(text, -1) {
			if !strings.Contains(text, fmt.Sprintf("//   %s ", m[1])) {
				t.Errorf("%s: binding %s is not described in the header", path, m[1])
			}
		}
	}
}

// TestShadersCompile builds every kernel's pipeline on the device.
func TestShadersCompile(t *testing.T) {
	d := testDevice(t)
	names := allShaders(t)
	for _, path := range names {
		if _, err := d.pipeline(strings.TrimPrefix(path, "shaders/")); err != nil {
			t.Error(err)
		}
	}
}

// sharedKernels lists the kernels that several ops run, with the methods of
// Kernels whose twins hold them.
var sharedKernels = map[string][]string{
	"strided_copy.wgsl": {"Permute", "Expand", "Narrow", "Cat", "Stack", "PadZero"},
	"gather.wgsl":       {"IndexSelect", "Gather"},
	"scatter_add.wgsl":  {"ScatterAdd", "IndexAdd"},
	"max_pool.wgsl":     {"MaxPool"},
	"im2col.wgsl":       {"Conv2d"},
	"col2im.wgsl":       {"Conv2dInputGrad"},
}

// TestEveryShaderHasATwin checks that each kernel file has a method of the
// same name in Kernels (gate_forward.wgsl: GateForward, clip_value.wgsl: ClipValue),
// or the methods sharedKernels lists for it, which the CPU twin implements
// as well.
func TestEveryShaderHasATwin(t *testing.T) {
	kernels := reflect.TypeFor[Kernels]()
	names, _ := fs.Glob(shaders, "shaders/*.wgsl") // the automaton's: autograd's are checked by parity tests
	for _, path := range names {
		name := strings.TrimPrefix(path, "shaders/")
		twins, ok := sharedKernels[name]
		if !ok {
			twins = []string{strings.ReplaceAll(strings.TrimSuffix(name, ".wgsl"), "_", "")}
		}
		for _, twin := range twins {
			found := false
			for i := range kernels.NumMethod() {
				found = found || strings.EqualFold(kernels.Method(i).Name, twin)
			}
			if !found {
				t.Errorf("%s has no twin: Kernels has no method %s", path, twin)
			}
		}
	}
}

// helperDecl matches a WGSL helper function, from "fn name(" to the brace
// that closes it at the start of a line.
var helperDecl = regexp.MustCompile(`(?ms)^fn (\w+)\(.*?^\}`)

// TestHelpersIdentical checks that a helper function copied into several
// shaders (WGSL has no includes; source() is in both perception kernels) is
// the same in every copy, up to indentation and line breaks, as
// TestParamsMirrorWGSL does for the uniform structs.
func TestHelpersIdentical(t *testing.T) {
	names := allShaders(t)
	first := map[string]string{} // helper name -> path of its first copy
	body := map[string]string{}  // helper name -> its first copy
	for _, path := range names {
		src, _ := shaders.ReadFile(path)
		for _, m := range helperDecl.FindAllStringSubmatch(string(src), -1) {
			name, fn := m[1], strings.Join(strings.Fields(m[0]), " ")
			if name == "main" { // every kernel's own entry point
				continue
			}
			if b, ok := body[name]; ok && b != fn {
				t.Errorf("%s: fn %s differs from its copy in %s:\n%s\nvs\n%s", path, name, first[name], fn, b)
			}
			if _, ok := body[name]; !ok {
				first[name], body[name] = path, fn
			}
		}
	}
	if _, ok := body["source"]; !ok {
		t.Error("no shader declares fn source: is helperDecl still right?")
	}
}
