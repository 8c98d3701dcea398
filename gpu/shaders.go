package gpu

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// shaders holds one WGSL kernel per file (the cellular automaton's, and
// autograd's under shaders/autograd/), and under shaders/lib/ the helpers
// that several kernels use; a pipeline is labelled by its kernel's file name
// so that compiler errors point at the file.
//
//go:embed shaders/*.wgsl shaders/autograd/*.wgsl shaders/lib/*.wgsl
var shaders embed.FS

// usesPrefix opens the first line of a kernel that uses shared helpers:
// "// uses: broadcast, params" asks for shaders/lib/broadcast.wgsl and
// shaders/lib/params.wgsl.
//
// WGSL has no includes, so every helper (a function, or a uniform struct in
// params.wgsl) lives once under shaders/lib/ and shaderSource assembles each
// kernel's source. The kernel names its helper files in one explicit line,
// rather than the loader guessing them from its text or giving every kernel
// all of them, so that a reader sees where each name comes from and the
// compiler sees only what the kernel asked for (TestHelpers holds the line to
// what the kernel uses). The helpers are appended after the kernel rather
// than prepended, which WGSL allows (a module's declarations may come in any
// order), so that the line numbers in a compiler error are those of the
// kernel's own file.
const usesPrefix = "// uses: "

// shaderSource returns the WGSL source compiled for kernel name (a path
// under shaders/, such as "autograd/binary.wgsl") read from fsys: the
// kernel's file followed by each helper file its first line asks for. The
// tests that check what a kernel compiles (its header, uniform structs and
// op codes) read it through here too.
func shaderSource(fsys fs.FS, name string) (string, error) {
	src, err := fs.ReadFile(fsys, path.Join("shaders", name))
	if err != nil {
		return "", fmt.Errorf("gpu: no shader %q: %v", name, err)
	}
	var b strings.Builder
	b.Write(src)
	for _, lib := range shaderUses(string(src)) {
		file := path.Join("shaders/lib", lib+".wgsl")
		code, err := fs.ReadFile(fsys, file)
		if err != nil {
			have, _ := fs.Glob(fsys, "shaders/lib/*.wgsl")
			return "", fmt.Errorf("gpu: shaders/%s asks for %s (%q on its first line), which does not exist; the helper files are %s",
				name, file, lib, strings.Join(have, ", "))
		}
		b.WriteString("\n")
		b.Write(code)
	}
	return b.String(), nil
}

// shaderUses returns the helper files (names under shaders/lib/ without
// .wgsl) that a kernel's first line asks for, or nil.
func shaderUses(src string) []string {
	first, _, _ := strings.Cut(src, "\n")
	list, ok := strings.CutPrefix(first, usesPrefix)
	if !ok {
		return nil
	}
	var libs []string
	for lib := range strings.SplitSeq(list, ",") {
		libs = append(libs, strings.TrimSpace(lib))
	}
	return libs
}
