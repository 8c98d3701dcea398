package gpu

import (
	"fmt"
	"io/fs"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

var bindingDecl = regexp.MustCompile(`@binding\((\d+)\)`)

// allShaders lists every embedded kernel: the automaton's under shaders/ and
// autograd's under shaders/autograd/ (not the helper files under
// shaders/lib/, which are no kernels).
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

// kernelSource returns the source the device compiles for the kernel at
// path (as allShaders lists it): its file and the helper files it asks for.
func kernelSource(t *testing.T, path string) string {
	t.Helper()
	src, err := shaderSource(shaders, strings.TrimPrefix(path, "shaders/"))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// TestShaderHeaders checks that every kernel file opens (after the line that
// asks for helpers, if any) with its own name and documents its entry point,
// workgroup size and every binding it declares.
func TestShaderHeaders(t *testing.T) {
	names := allShaders(t)
	for _, path := range names {
		text := kernelSource(t, path)
		if shaderUses(text) != nil {
			_, text, _ = strings.Cut(text, "\n")
		}
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
// same name in Kernels or tensorKernels (gate_forward.wgsl: GateForward,
// clip_value.wgsl: ClipValue, matmul.wgsl: MatMul), or the methods
// sharedKernels lists for it, which the CPU twin implements as well.
func TestEveryShaderHasATwin(t *testing.T) {
	var methods []string
	for _, k := range []reflect.Type{reflect.TypeFor[Kernels](), reflect.TypeFor[tensorKernels]()} {
		for i := range k.NumMethod() {
			methods = append(methods, k.Method(i).Name)
		}
	}
	names, _ := fs.Glob(shaders, "shaders/*.wgsl") // the automaton's: autograd's are checked by parity tests
	for _, path := range names {
		name := strings.TrimPrefix(path, "shaders/")
		twins, ok := sharedKernels[name]
		if !ok {
			twins = []string{strings.ReplaceAll(strings.TrimSuffix(name, ".wgsl"), "_", "")}
		}
		for _, twin := range twins {
			found := false
			for _, m := range methods {
				found = found || strings.EqualFold(m, twin)
			}
			if !found {
				t.Errorf("%s has no twin: neither Kernels nor tensorKernels has a method %s", path, twin)
			}
		}
	}
}

var (
	helperDecl = regexp.MustCompile(`(?m)^(?:fn|struct) (\w+)`)
	identifier = regexp.MustCompile(`\b[A-Za-z_]\w*\b`)
	comment    = regexp.MustCompile(`//.*`)
)

// TestHelpers checks the helper files under shaders/lib/: every function and
// struct is declared in one file only, every kernel asks on its first line
// for the helper files of every helper it uses (directly or through another
// helper file) and for no other, and no line but the first asks for any.
func TestHelpers(t *testing.T) {
	libs, _ := fs.Glob(shaders, "shaders/lib/*.wgsl")
	defined := map[string]string{} // function or struct -> the file declaring it
	libOf := map[string]string{}   // helper -> its helper file's name in a uses line
	for _, path := range append(allShaders(t), libs...) {
		src, _ := shaders.ReadFile(path)
		for _, m := range helperDecl.FindAllStringSubmatch(string(src), -1) {
			name := m[1]
			if name == "main" { // every kernel's own entry point
				continue
			}
			if first, ok := defined[name]; ok {
				t.Errorf("%s is declared in %s and in %s: keep one copy under shaders/lib/, asked for on the first line of the kernels that use it (%q)",
					name, first, path, usesPrefix+"...")
			}
			defined[name] = path
			if lib, ok := strings.CutPrefix(path, "shaders/lib/"); ok {
				libOf[name] = strings.TrimSuffix(lib, ".wgsl")
			}
		}
	}
	if libOf["isNaN"] != "nan" || libOf["EwParams"] != "params" {
		t.Fatalf("no isNaN in shaders/lib/nan.wgsl or no EwParams in shaders/lib/params.wgsl: is helperDecl still right?")
	}
	for _, path := range allShaders(t) {
		src, _ := shaders.ReadFile(path)
		asked := shaderUses(string(src))
		code := map[string]string{path: string(src)} // the kernel and the helper files it asks for, by path
		for _, lib := range asked {
			file := "shaders/lib/" + lib + ".wgsl"
			more, err := shaders.ReadFile(file)
			if err != nil {
				t.Errorf("%s asks for %q: %v", path, lib, err)
			}
			code[file] = string(more)
		}
		needed := map[string]bool{} // helper files used by the kernel or by another helper file
		for file, text := range code {
			for _, name := range identifier.FindAllString(comment.ReplaceAllString(text, ""), -1) {
				lib, ok := libOf[name]
				if !ok || needed[lib] || file == "shaders/lib/"+lib+".wgsl" {
					continue
				}
				needed[lib] = true
				if !slices.Contains(asked, lib) {
					t.Errorf("%s uses %s (in %s) but does not ask for %s: add it to the first line, %q",
						path, name, file, lib, usesPrefix+"...")
				}
			}
		}
		for i, lib := range asked {
			if !needed[lib] {
				t.Errorf("%s asks for %s but uses none of it", path, lib)
			}
			if slices.Contains(asked[:i], lib) {
				t.Errorf("%s asks for %s twice", path, lib)
			}
		}
		if strings.Contains(string(src), "\n"+usesPrefix) {
			t.Errorf("%s asks for helpers below its first line, where the loader does not look", path)
		}
	}
	for _, path := range libs {
		if src, _ := shaders.ReadFile(path); strings.Contains("\n"+string(src), "\n"+usesPrefix) {
			t.Errorf("%s asks for helpers, which only a kernel can: ask for them in the kernels that use it", path)
		}
	}
}

// TestShaderSource checks how a kernel's source is assembled from a file
// system holding one kernel and one helper file, and that asking for a
// helper file that does not exist is an error naming the kernel and the
// file.
func TestShaderSource(t *testing.T) {
	fsys := fstest.MapFS{
		"shaders/k.wgsl":         {Data: []byte("// uses: twice\nfn main() { twice(1.0); }\n")},
		"shaders/bad.wgsl":       {Data: []byte("// uses: twice, thrice\nfn main() {}\n")},
		"shaders/plain.wgsl":     {Data: []byte("// plain.wgsl: asks for nothing\n")},
		"shaders/lib/twice.wgsl": {Data: []byte("fn twice(x: f32) -> f32 { return 2.0 * x; }\n")},
	}
	got, err := shaderSource(fsys, "k.wgsl")
	if want := "// uses: twice\nfn main() { twice(1.0); }\n\nfn twice(x: f32) -> f32 { return 2.0 * x; }\n"; err != nil || got != want {
		t.Errorf("k.wgsl assembles to %q, %v; want %q", got, err, want)
	}
	if got, err := shaderSource(fsys, "plain.wgsl"); err != nil || got != "// plain.wgsl: asks for nothing\n" {
		t.Errorf("plain.wgsl assembles to %q, %v; want the file alone", got, err)
	}
	_, err = shaderSource(fsys, "bad.wgsl")
	if err == nil || !strings.Contains(err.Error(), "shaders/bad.wgsl") || !strings.Contains(err.Error(), "shaders/lib/thrice.wgsl") {
		t.Errorf("a kernel asking for a missing helper file gives %v, want an error naming shaders/bad.wgsl and shaders/lib/thrice.wgsl", err)
	}
	if _, err := shaderSource(fsys, "none.wgsl"); err == nil {
		t.Error("a missing kernel gives no error")
	}
}
