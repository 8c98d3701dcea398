package gpu

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// The shader lint: every WGSL file under shaders/ (kernels and helper files)
// is scanned for what WGSL or Vulkan leave undefined, or to the
// implementation, and that a driver may therefore compute differently from
// lavapipe (an NVIDIA H100 computed the periodic wrap (sy % h + h) % h
// differently, docs/gpu.md "What the kernels rely on"). A line that must
// use such a construct says why it is safe in a comment on the same line,
// "// safe: <reason>". The patterns:
//
//   - % or / with a signed (i32) operand: Vulkan leaves OpSRem and OpSMod
//     undefined for a negative operand, and a signed division by 0 or of
//     the smallest i32 by -1;
//   - log, log2, pow, sqrt, inverseSqrt: undefined at 0 or below (and a GPU
//     may flush a subnormal argument to 0); lib/ieee.wgsl's lnf, log2f and
//     sqrtf and lib/pow.wgsl's powf decide those inputs first;
//   - a shift by an amount that is not a literal: undefined from the bit
//     width up;
//   - u32(...) or i32(...) of a float: undefined out of range (and at NaN);
//   - min, max, clamp: WGSL lets them return either operand when one is
//     NaN;
//   - exp, exp2, sin, cos, tan, tanh, sinh, cosh: WGSL lets an
//     implementation assume that no NaN or Inf reaches them (SwiftShader's
//     exp(NaN) is +Inf), and promises sin and cos only to 2^-11 absolute
//     on [-π, π] (SwiftShader's are 1.9e-4 off); lib/ieee.wgsl's expf and
//     lib/trig.wgsl's sinf and cosf decide NaN and Inf by their bits and
//     compute sin and cos to float32's precision;
//   - x != x as a NaN test, and a comparison with the largest float as an
//     Inf test: a compiler that assumes no NaN or Inf (WGSL allows it) folds
//     them away; lib/nan.wgsl's isNaN and lib/ieee.wgsl's isInf test bits.
//
// Barriers in non-uniform control flow are rejected by the WGSL compiler's
// uniformity analysis (TestShadersCompile); reads past a buffer's end and
// unsigned divisions by a size that could be 0 cannot be seen in one line
// and are listed per kernel in docs/gpu.md.

// safeMarker opens the reason comment that exempts a line.
const safeMarker = "// safe:"

var (
	lintIdent      = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)
	lintDecl       = regexp.MustCompile(`\b(?:let|var|const)\s+([A-Za-z_]\w*)\s*(?::\s*([\w<>, ]+?))?\s*=\s*([^;]*)`)
	lintTypedParam = regexp.MustCompile(`\b([A-Za-z_]\w*)\s*:\s*(i32|f32|array<f32[^>]*>|vec\d<f32>)`)
	lintSignedFn   = regexp.MustCompile(`\bfn\s+([A-Za-z_]\w*)\s*\([^)]*\)\s*->\s*i32\b`)
	lintFloatFn    = regexp.MustCompile(`\bfn\s+([A-Za-z_]\w*)\s*\([^)]*\)\s*->\s*f32\b`)
	lintIntLiteral = regexp.MustCompile(`^-?\d+$`)
	lintFloatLit   = regexp.MustCompile(`\b\d+\.\d*(?:e[-+]?\d+)?\b|\b\d+e[-+]?\d+\b|\b\d+(?:\.\d*)?f\b`)
	lintLogCall    = regexp.MustCompile(`(^|[^\w.])(log|log2|pow|sqrt|inverseSqrt)\s*\(`)
	lintMinMax     = regexp.MustCompile(`(^|[^\w.])(min|max|clamp)\s*\(`)
	lintTranscend  = regexp.MustCompile(`(^|[^\w.])(exp|exp2|sin|cos|tan|tanh|sinh|cosh)\s*\(`)
	lintConv       = regexp.MustCompile(`(^|[^\w.<])(u32|i32)\s*\(`)
	lintShift      = regexp.MustCompile(`(<<|>>)=?\s*`)
	lintSelfNe     = regexp.MustCompile(`\b([A-Za-z_][\w.\[\]]*)\s*!=\s*([A-Za-z_][\w.\[\]]*)`)
	lintMaxFloat   = regexp.MustCompile(`3\.40282\d*e\+?38`)
	lintDivMod     = regexp.MustCompile(`[%/]`)
)

// lintTypes is what the lint knows of a file's names: the signed (i32)
// ones and the float ones (f32 variables, and f32 arrays, whose elements
// are floats), and the functions returning each.
type lintTypes struct {
	signed, float, signedFn, floatFn map[string]bool
}

// typesOf collects the names a file declares with their types, from
// declarations (typed, or by their initialiser: i32(...), a bare integer
// literal such as -1, a float literal, another name of known type) and
// typed parameters and bindings.
func typesOf(code string) lintTypes {
	ty := lintTypes{map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}}
	for _, m := range lintSignedFn.FindAllStringSubmatch(code, -1) {
		ty.signedFn[m[1]] = true
	}
	for _, m := range lintFloatFn.FindAllStringSubmatch(code, -1) {
		ty.floatFn[m[1]] = true
	}
	for _, m := range lintTypedParam.FindAllStringSubmatch(code, -1) {
		if m[2] == "i32" {
			ty.signed[m[1]] = true
		} else {
			ty.float[m[1]] = true
		}
	}
	for range 3 { // names typed by names declared later in the file
		for _, m := range lintDecl.FindAllStringSubmatch(code, -1) {
			name, typ, init := m[1], strings.TrimSpace(m[2]), strings.TrimSpace(m[3])
			switch {
			case typ == "i32":
				ty.signed[name] = true
			case typ == "f32" || strings.HasPrefix(typ, "vec") || strings.Contains(typ, "f32"):
				ty.float[name] = true
			case typ != "":
			case lintIntLiteral.MatchString(init) || ty.signedExpr(init):
				ty.signed[name] = true
			case ty.floatExpr(init):
				ty.float[name] = true
			}
		}
	}
	return ty
}

// unsignedCalls matches the conversions whose result is not signed, so that
// a signed name inside one does not make the expression signed.
var unsignedCalls = regexp.MustCompile(`\b(?:u32|f32|bitcast<\w+>)\s*\(`)

// withoutCalls returns expr with every call matched by calls (and its
// arguments) replaced by "_".
func withoutCalls(expr string, calls *regexp.Regexp) string {
	for {
		loc := calls.FindStringIndex(expr)
		if loc == nil {
			return expr
		}
		end := matching(expr, loc[1]-1)
		expr = expr[:loc[0]] + "_" + expr[end+1:]
	}
}

// matching returns the index of the bracket closing the one at open, or
// the end of s.
func matching(s string, open int) int {
	pairs := map[byte]byte{'(': ')', '[': ']'}
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case s[open]:
			depth++
		case pairs[s[open]]:
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return len(s) - 1
}

// signedExpr reports whether expr (an operand or an initialiser) has a
// signed integer type: it converts to i32, or names a signed variable or a
// function returning i32, outside any u32, f32 or bitcast conversion.
func (ty lintTypes) signedExpr(expr string) bool {
	e := withoutCalls(expr, unsignedCalls)
	if strings.Contains(e, "i32(") {
		return true
	}
	for _, loc := range lintIdent.FindAllStringIndex(e, -1) {
		name := e[loc[0]:loc[1]]
		if loc[0] > 0 && e[loc[0]-1] == '.' { // a struct field: params.n is never signed here
			continue
		}
		call := loc[1] < len(e) && e[loc[1]] == '('
		if (call && ty.signedFn[name]) || (!call && ty.signed[name]) {
			return true
		}
	}
	return false
}

// floatExpr reports whether expr involves a float: a float literal, a
// float variable or array element, or a call of a function returning f32.
func (ty lintTypes) floatExpr(expr string) bool {
	e := withoutCalls(expr, regexp.MustCompile(`\b(?:bitcast<\w+>|u32|i32)\s*\(`))
	if lintFloatLit.MatchString(e) || strings.Contains(e, "f32(") {
		return true
	}
	for _, loc := range lintIdent.FindAllStringIndex(e, -1) {
		name := e[loc[0]:loc[1]]
		if loc[0] > 0 && e[loc[0]-1] == '.' {
			continue
		}
		call := loc[1] < len(e) && e[loc[1]] == '('
		if (call && ty.floatFn[name]) || (!call && ty.float[name]) {
			return true
		}
	}
	return false
}

// leftOperand returns the operand that ends just before index i of code:
// a name (with fields and indexing), a call or a bracketed group.
func leftOperand(code string, i int) string {
	j := i - 1
	for j >= 0 && code[j] == ' ' {
		j--
	}
	end := j + 1
	for j >= 0 {
		switch c := code[j]; {
		case c == ')' || c == ']':
			depth := 0
			for ; j >= 0; j-- {
				if code[j] == c {
					depth++
				} else if (c == ')' && code[j] == '(') || (c == ']' && code[j] == '[') {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			j--
		case c == '_' || c == '.' || c == '>' || c == '<' && j+1 < end || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9':
			if c == '>' && !strings.HasSuffix(code[:j+1], "u32>") && !strings.HasSuffix(code[:j+1], "f32>") && !strings.HasSuffix(code[:j+1], "i32>") {
				return code[j+1 : end]
			}
			j--
		default:
			return code[j+1 : end]
		}
	}
	return code[:end]
}

// rightOperand returns the operand that starts just after index i of code.
func rightOperand(code string, i int) string {
	j := i + 1
	for j < len(code) && (code[j] == ' ' || code[j] == '=') {
		j++
	}
	start := j
	if j < len(code) && code[j] == '-' {
		j++
	}
	for j < len(code) {
		c := code[j]
		switch {
		case c == '(' || c == '[':
			j = matching(code, j) + 1
		case c == '_' || c == '.' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9':
			j++
		default:
			return code[start:j]
		}
	}
	return code[start:]
}

// lintFinding is one line the lint refuses.
type lintFinding struct {
	line int
	what string
	text string
}

// lintWGSL returns the lines of src that use a construct WGSL or Vulkan
// leave undefined without a "// safe: <reason>" comment.
func lintWGSL(src string) []lintFinding {
	var code strings.Builder
	lines := strings.Split(src, "\n")
	codeOf := make([]string, len(lines))
	for i, l := range lines {
		c, _, _ := strings.Cut(l, "//")
		codeOf[i] = c
		code.WriteString(c + "\n")
	}
	ty := typesOf(code.String())
	var found []lintFinding
	for i, l := range lines {
		if _, reason, ok := strings.Cut(l, safeMarker); ok && strings.TrimSpace(reason) != "" {
			continue
		}
		c := codeOf[i]
		add := func(what string) { found = append(found, lintFinding{i + 1, what, strings.TrimSpace(l)}) }
		for _, loc := range lintDivMod.FindAllStringIndex(c, -1) {
			left, right := leftOperand(c, loc[0]), rightOperand(c, loc[0])
			if ty.signedExpr(left) || ty.signedExpr(right) || strings.HasPrefix(right, "-") && !ty.floatExpr(right) {
				add(fmt.Sprintf("%s on a signed operand (%s %s %s): Vulkan leaves it undefined for a negative one", c[loc[0]:loc[1]], left, c[loc[0]:loc[1]], right))
			}
		}
		if m := lintLogCall.FindStringSubmatch(c); m != nil {
			add(m[2] + ": undefined at 0 or below in WGSL (use lnf, log2f, sqrtf or powf from shaders/lib, or say why the argument is positive)")
		}
		for _, loc := range lintShift.FindAllStringIndex(c, -1) {
			amount := rightOperand(c, loc[1]-1)
			if !regexp.MustCompile(`^\d+u?$`).MatchString(amount) {
				add("a shift by " + amount + ", not a literal: undefined from the bit width up")
			}
		}
		for _, loc := range lintConv.FindAllStringSubmatchIndex(c, -1) {
			open := loc[5]
			arg := c[open+1 : matching(c, open)]
			if ty.floatExpr(arg) {
				add(c[loc[4]:loc[5]] + "(" + arg + ") converts a float: undefined out of range and at NaN")
			}
		}
		if m := lintMinMax.FindStringSubmatch(c); m != nil {
			add(m[2] + ": WGSL may drop a NaN operand (compare and select, as lib/reduce.wgsl's combine, or say why no NaN reaches it)")
		}
		if m := lintTranscend.FindStringSubmatch(c); m != nil {
			add(m[2] + ": WGSL may assume no NaN or Inf reaches it, and bounds sin and cos only to 2^-11 (use expf, sinf or cosf from shaders/lib, or say why the argument is finite and in range)")
		}
		for _, m := range lintSelfNe.FindAllStringSubmatch(c, -1) {
			if m[1] == m[2] {
				add(m[0] + " as a NaN test: a compiler may fold it to false (use isNaN)")
			}
		}
		if lintMaxFloat.MatchString(c) {
			add("a comparison with the largest float as an Inf test: a compiler may assume no Inf (use isInf)")
		}
	}
	return found
}

// TestShaderLintCatchesUndefinedBehaviour plants each pattern in a small
// kernel body and checks that the lint refuses it, and accepts it once the
// line says why it is safe, and that the safe forms pass as they are.
func TestShaderLintCatchesUndefinedBehaviour(t *testing.T) {
	const header = `@group(0) @binding(1) var<storage, read> xs: array<f32>;
fn f(y: u32, dy: i32, n: u32, v: f32) -> f32 {
`
	cases := []struct {
		name, line string
		refused    bool
	}{
		{"the periodic wrap of issue 26", `    let s = (i32(y) + dy) % i32(n);`, true},
		{"a negative % through a name", `    let sy = i32(y) + dy; let r = (sy % 5 + 5) % 5;`, true},
		{"a % of a signed parameter", `    let r = dy % 3;`, true},
		{"a signed /", `    var best = -1; let q = best / 2;`, true},
		{"log2 that can meet 0", `    let l = log2(abs(v));`, true},
		{"log", `    let l = log(v);`, true},
		{"sqrt", `    let l = sqrt(v);`, true},
		{"inverseSqrt", `    let l = inverseSqrt(v);`, true},
		{"pow", `    let l = pow(v, 0.5);`, true},
		{"a shift by a variable", `    let s = n << y;`, true},
		{"a float converted to an index", `    let k = u32(xs[n]);`, true},
		{"a float variable converted", `    let w = v * 2.0; let k = i32(w);`, true},
		{"max, which may drop NaN", `    let m = max(v, xs[0]);`, true},
		{"clamp", `    let m = clamp(v, 0.0, 1.0);`, true},
		{"x != x", `    let bad = v != v;`, true},
		{"exp, which may meet NaN", `    let e = exp(v - 1.0);`, true},
		{"exp2", `    let e = exp2(v);`, true},
		{"sin, accurate only to 2^-11", `    let s = sin(v) + 1.0;`, true},
		{"cos", `    let c = cos(xs[n]);`, true},
		{"tanh", `    let c = tanh(v);`, true},
		{"an Inf test by comparison", `    let inf = abs(v) > 3.4028234663852886e38;`, true},
		{"u32 % and /", `    let r = (y % n) / n;`, false},
		{"% of u32(th) once th >= 0", `    let th = i32(y) + dy; if (th < 0 || u32(th) % n != 0u) { return 0.0; }`, false},
		{"the helpers", `    let l = log2f(v) + lnf(v) + sqrtf(v) + powf(v, 0.5) + divf(v, 2.0);`, false},
		{"the transcendental helpers", `    let l = expf(v) + sinf(v) + cosf(v) + tanhf(v) + mulf(v, v);`, false},
		{"a shift by a literal", `    let s = (n >> 28u) << 4u;`, false},
		{"float division", `    let q = v / 2.0 + 1.0 / (1.0 + v);`, false},
		{"u32 of an integer", `    let k = u32(dy + 1) + u32(y);`, false},
		{"isNaN", `    let k = isNaN(v) || isInf(v);`, false},
		{"a signed name in a comment", `    let r = y % n; // dy % 3 would not be`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := header + c.line + "\n    return v;\n}\n"
			got := lintWGSL(src)
			if (len(got) > 0) != c.refused {
				t.Fatalf("lint of %q: %v, want refused=%v", c.line, got, c.refused)
			}
			if c.refused {
				if again := lintWGSL(header + c.line + " // safe: a reason\n    return v;\n}\n"); len(again) > 0 {
					t.Errorf("with a reason the lint still refuses it: %v", again)
				}
				if again := lintWGSL(header + c.line + " // safe:\n    return v;\n}\n"); len(again) == 0 {
					t.Errorf("a marker without a reason exempts the line")
				}
			}
		})
	}
}

// TestShadersHaveNoUndefinedBehaviour runs the lint on every WGSL file the
// package embeds: kernels and helper files.
func TestShadersHaveNoUndefinedBehaviour(t *testing.T) {
	var files []string
	for _, pattern := range []string{"shaders/*.wgsl", "shaders/autograd/*.wgsl", "shaders/lib/*.wgsl"} {
		m, err := fs.Glob(shaders, pattern)
		if err != nil || len(m) == 0 {
			t.Fatalf("no shaders embedded as %s: %v", pattern, err)
		}
		files = append(files, m...)
	}
	for _, path := range files {
		src, err := shaders.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range lintWGSL(string(src)) {
			t.Errorf("%s:%d: %s (or add %q with the reason it is safe):\n\t%s", path, f.line, f.what, safeMarker+" <reason>", f.text)
		}
	}
}
