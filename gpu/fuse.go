package gpu

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/cogentcore/webgpu/wgpu"
)

// Fusion of a captured program (Capture): each run of elementwise
// dispatches (fill, unary, binary, strided, where, value clipping, the Adam
// and SGD updates, the narrow reductions) becomes one dispatch of a kernel
// generated from theirs. Every kernel of the set is a grid-stride loop over
// its elements whose body writes its own element (and reads its own
// element, operands at broadcast offsets, or a reduced slice); the
// generated kernel runs, for each element i, every body of the run in
// order, each guarded by its own loop bound, with each body's bindings
// renamed to the fused kernel's and its params to its own member of one
// uniform struct that holds every member's params as recorded (48 members
// of at most 176 bytes stay within the 16 KiB of uniform every WebGPU
// device allows). Every store of the separate kernels is kept (an
// intermediate tensor the backward pass reads is still written), so
// fusion saves dispatches, not memory traffic, and changes no result
// beyond the contraction of a multiply and an add into one rounding that a
// compiler may make across the former kernels' boundaries. A matrix
// product may open a run (epilogues): the other members then run after
// each of its stores, on that element.
//
// A run stops where fusing would let one invocation see another's element
// out of order: a body that reads a buffer written earlier in the run at
// any offset but its own element's, or writes a buffer read earlier in the
// run at such an offset. It stops too at a buffer clear, a kernel outside
// the set, and the bindings the device allows. Before grouping, schedule
// moves fusable dispatches next to each other where no buffer forbids it.

// fusableShaders are the kernels whose dispatches fuse.
var fusableShaders = []string{
	"autograd/fill.wgsl", "autograd/unary.wgsl", "autograd/binary.wgsl", "autograd/strided.wgsl",
	"autograd/where.wgsl", "clip_value.wgsl", "autograd/adam.wgsl", "autograd/sgd.wgsl",
	"autograd/reduce.wgsl",
	"matmul.wgsl", // as a run's head only, the run its epilogue
}

// fusedPrefix starts the name of every kernel fusion generates.
const fusedPrefix = "fused-"

// maxFusedBuffers and maxFusedOps bound one fused kernel: its storage
// bindings (also capped by the device's limit) and its members.
const (
	maxFusedBuffers = 16
	maxFusedOps     = 48
)

// kernelBody is what fusion knows of one fusable kernel, parsed from its
// file: the loop body, its storage bindings in order (from binding 1), the
// declarations before its entry point, the helper files it uses and its
// params struct.
type kernelBody struct {
	// head marks a kernel that is no grid-stride loop (the matrix
	// product): it can only open a run, whose other members become the
	// epilogue of each of its stores; body is then its whole entry point.
	head     bool
	prologue string // the entry point's statements before its loop
	loopVar  string // the loop's element index
	bound    string // the loop's element count
	body     string
	binds    []kernelBinding
	prelude  string
	uses     []string
	paramsTy string
}

// kernelBinding is one storage binding of a kernel: its name, whether the
// body writes it (always at its element), and how it reads it: at its
// element (row -1), at the broadcast offset of params row row (row > 0),
// or anywhere (row 0: a reduction's slice).
type kernelBinding struct {
	name   string
	writes bool
	reads  []int // rows of its reads: -1 for element i
}

var (
	bindingRE = regexp.MustCompile(`@group\(0\) @binding\((\d+)\) var<([^>]+)> (\w+): ([^;]+);`)
	loopRE    = regexp.MustCompile(`for \(var (\w+) = gid\.x; (\w+) < ([^;]+); (\w+) \+= nwg\.x \* 64u\) \{`)
	entryRE   = regexp.MustCompile(`@compute @workgroup_size\(64\)\s*fn main\(.*\) \{`)
	storeRE   = regexp.MustCompile(`(fz_buf\d+)\[([^\]]+)\] = ([^;]+);`)

	kernelBodies struct {
		sync.Mutex
		m map[string]*kernelBody
	}
)

// parseKernel returns the kernelBody of shader, or an error when its file
// does not have the shape fusion relies on.
func parseKernel(shader string) (*kernelBody, error) {
	kernelBodies.Lock()
	defer kernelBodies.Unlock()
	if k, ok := kernelBodies.m[shader]; ok {
		return k, nil
	}
	raw, err := fs.ReadFile(shaders, path.Join("shaders", shader))
	if err != nil {
		return nil, err
	}
	src := string(raw)
	k := &kernelBody{uses: shaderUses(src)}
	e := entryRE.FindStringIndex(src)
	l := loopRE.FindStringSubmatchIndex(src)
	if e == nil {
		return nil, fmt.Errorf("gpu: shaders/%s has no entry point main of workgroup size 64", shader)
	}
	var start, head int
	switch {
	case shader == "matmul.wgsl":
		k.head = true
		start, head = e[0], e[1]-e[0]
	case l == nil || l[0] < e[1]:
		return nil, fmt.Errorf("gpu: shaders/%s has no grid-stride loop to fuse", shader)
	default:
		start, head = l[0], l[1]-l[0]
		k.loopVar, k.bound = src[l[2]:l[3]], src[l[6]:l[7]]
		if src[l[4]:l[5]] != k.loopVar || src[l[8]:l[9]] != k.loopVar {
			return nil, fmt.Errorf("gpu: shaders/%s: the loop's variable changes name", shader)
		}
		k.prologue = src[e[1]:start]
	}
	entry := e[0]
	depth, end := 1, -1
	for j := start + head; j < len(src) && end < 0; j++ {
		switch src[j] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				end = j
			}
		}
	}
	if end < 0 || (!k.head && strings.TrimSpace(src[end+1:]) != "}") || (k.head && strings.TrimSpace(src[end+1:]) != "") {
		return nil, fmt.Errorf("gpu: shaders/%s: the loop is not the whole entry point", shader)
	}
	k.body = src[start+head : end]
	if k.head {
		k.body = src[start : end+1]
	}
	var pre strings.Builder
	for line := range strings.SplitSeq(src[:entry], "\n") {
		m := bindingRE.FindStringSubmatch(line)
		if m == nil {
			pre.WriteString(line + "\n")
			continue
		}
		if m[1] == "0" {
			if m[3] != "params" || m[2] != "uniform" {
				return nil, fmt.Errorf("gpu: shaders/%s: binding 0 is not the uniform params", shader)
			}
			k.paramsTy = m[4]
			continue
		}
		if m[4] != "array<f32>" || m[1] != fmt.Sprint(len(k.binds)+1) {
			return nil, fmt.Errorf("gpu: shaders/%s: binding %s is not the next array<f32>", shader, m[1])
		}
		k.binds = append(k.binds, kernelBinding{name: m[3]})
	}
	k.prelude = pre.String()
	if k.paramsTy == "" {
		return nil, fmt.Errorf("gpu: shaders/%s has no uniform params", shader)
	}
	for bi := range k.binds {
		b := &k.binds[bi]
		re := regexp.MustCompile(`\b` + b.name + `\[([^\]]*)\](\s*=[^=])?`)
		for _, m := range re.FindAllStringSubmatch(k.body, -1) {
			ix := strings.TrimSpace(m[1])
			if m[2] != "" {
				if ix != k.loopVar && !k.head {
					return nil, fmt.Errorf("gpu: shaders/%s writes %s[%s], not its element", shader, b.name, ix)
				}
				b.writes = true
				continue
			}
			row := -1
			if ix != k.loopVar {
				if _, err := fmt.Sscanf(ix, "offsetOf("+k.loopVar+", %du)", &row); err != nil || row < 1 {
					row = 0
				}
			}
			b.reads = append(b.reads, row)
		}
	}
	if kernelBodies.m == nil {
		kernelBodies.m = map[string]*kernelBody{}
	}
	kernelBodies.m[shader] = k
	return k, nil
}

// identityRow reports whether row of params p addresses element i itself:
// the operand is contiguous and of the output's length.
func identityRow(p any, row int) bool {
	q, ok := p.(ewParams)
	if !ok || row == 0 {
		return false
	}
	acc := uint32(1) // the stride of dimension d in a contiguous operand
	for d := int(q.NDim) - 1; d >= 0; d-- {
		if q.St[row*maxDims+d] != acc {
			return false
		}
		acc *= q.St[d]
	}
	return true
}

// fuse rewrites p's segments, replacing each fusable run of two or more
// dispatches with one. A run whose kernel fails to compile stays as it was.
func (a *AutogradDevice) fuse(p *program, epilogues bool) {
	limit := min(maxFusedBuffers, int(a.d.Limits.MaxStorageBuffersPerShaderStage))
	moved := map[*wgpu.Buffer]fusedSlot{} // a fused dispatch's old uniform → its place in the new
	for si := range p.segs {
		sg := &p.segs[si]
		a.schedule(sg, limit, epilogues)
		var cmds []command
		var infos []cmdInfo
		for i := 0; i < len(sg.cmds); {
			n := a.fusableRun(sg.infos[i:], limit, epilogues)
			if n >= 2 {
				if c, info, ok := a.fuseRun(p, sg.infos[i:i+n], moved); ok {
					releaseGroups(sg.cmds[i : i+n])
					cmds, infos = append(cmds, c), append(infos, info)
					i += n
					continue
				}
			}
			cmds, infos = append(cmds, sg.cmds[i]), append(infos, sg.infos[i])
			i++
		}
		sg.cmds, sg.infos = cmds, infos
	}
	for _, h := range p.hooks {
		for j, sl := range h.slots {
			if m, ok := moved[sl.uniform]; ok {
				h.slots[j].uniform, h.slots[j].offset = m.uniform, m.offset
			}
		}
	}
}

// schedule reorders sg's commands so that fusable dispatches sit
// together: after each fusable dispatch it pulls forward the later ones
// that can join its run, provided that each shares no buffer that either
// writes with any command it moves ahead of (a kernel outside the fusable
// set counts as writing every buffer it binds). The order of any two
// commands that touch a buffer one of them writes is kept, so every
// command reads what it read before.
func (a *AutogradDevice) schedule(sg *segment, limit int, epilogues bool) {
	type item struct {
		c    command
		info cmdInfo
	}
	rest := make([]item, len(sg.cmds))
	for i := range sg.cmds {
		rest[i] = item{sg.cmds[i], sg.infos[i]}
	}
	var cmds []command
	var infos []cmdInfo
	for len(rest) > 0 {
		run := []cmdInfo{rest[0].info}
		cmds, infos = append(cmds, rest[0].c), append(infos, rest[0].info)
		rest = rest[1:]
		if a.fusableRun(run, limit, epilogues) != 1 {
			continue
		}
		for k := 0; k < len(rest) && len(run) < maxFusedOps; k++ {
			cand := rest[k].info
			if a.fusableRun(append(slices.Clone(run), cand), limit, epilogues) != len(run)+1 {
				continue
			}
			free := true
			for _, over := range rest[:k] {
				if conflict(over.info, cand) {
					free = false
					break
				}
			}
			if !free {
				continue
			}
			run = append(run, cand)
			cmds, infos = append(cmds, rest[k].c), append(infos, cand)
			rest = slices.Delete(rest, k, k+1)
			k--
		}
	}
	sg.cmds, sg.infos = cmds, infos
}

// conflict reports whether commands x and y share a buffer that either
// writes, so that their order matters.
func conflict(x, y cmdInfo) bool {
	xw, yw := writtenBuffers(x), writtenBuffers(y)
	for _, b := range x.bufs {
		if slices.Contains(y.bufs, b) && (xw[b] || yw[b]) {
			return true
		}
	}
	return false
}

// writtenBuffers returns the buffers a command may write: for a fusable
// kernel those its body stores to, for any other command (a clear
// included) every buffer it binds.
func writtenBuffers(in cmdInfo) map[*wgpu.Buffer]bool {
	w := map[*wgpu.Buffer]bool{}
	var k *kernelBody
	err := fmt.Errorf("not fusable")
	if slices.Contains(fusableShaders, in.shader) {
		k, err = parseKernel(in.shader)
	}
	if err != nil || len(k.binds) != len(in.bufs) {
		for _, b := range in.bufs {
			w[b] = true
		}
		return w
	}
	for j, b := range k.binds {
		if b.writes {
			w[in.bufs[j]] = true
		}
	}
	return w
}

// fusedSlot is where a fused dispatch's params live in the fused uniform.
type fusedSlot struct {
	uniform *wgpu.Buffer
	offset  uint64
}

// fusableRun returns how many of infos, from the first, fuse into one
// kernel (1 or 0 when none fuses with the next); a matrix product opens a
// run only when epilogues is true.
func (a *AutogradDevice) fusableRun(infos []cmdInfo, limit int, epilogues bool) int {
	written := map[*wgpu.Buffer]bool{}
	readAround := map[*wgpu.Buffer]bool{} // read at an offset other than i
	bufs := map[*wgpu.Buffer]bool{}
	n := 0
	epilogue := 0 // after a matrix product: the elements of its output
	for _, in := range infos {
		if n == maxFusedOps || !slices.Contains(fusableShaders, in.shader) {
			break
		}
		k, err := parseKernel(in.shader)
		if err != nil || len(k.binds) != len(in.bufs) {
			break
		}
		if k.head {
			q, ok := in.params.(matMulParams)
			if n > 0 || !ok || q.COff != 0 || !epilogues {
				break
			}
			epilogue = int(q.M * q.N * q.Batches)
		} else if epilogue > 0 && in.threads != epilogue {
			break // the epilogue runs once per stored element
		}
		ok := true
		added := 0
		for j, b := range k.binds {
			buf := in.bufs[j]
			if !bufs[buf] {
				added++
			}
			for _, row := range b.reads {
				around := row >= 0 && !identityRow(in.params, row)
				if around && written[buf] {
					ok = false // reads another invocation's element of this run
				}
			}
			if b.writes && readAround[buf] {
				ok = false // overwrites what another invocation reads
			}
		}
		if !ok || len(bufs)+added > limit {
			break
		}
		for j, b := range k.binds {
			buf := in.bufs[j]
			bufs[buf] = true
			for _, row := range b.reads {
				if row >= 0 && !identityRow(in.params, row) {
					readAround[buf] = true
				}
			}
			if b.writes {
				written[buf] = true
			}
		}
		n++
	}
	return n
}

// fuseRun generates, compiles and binds the kernel of run, returning its
// command and description, and notes in moved where each member's params
// went. It reports false when the kernel does not compile.
func (a *AutogradDevice) fuseRun(p *program, run []cmdInfo, moved map[*wgpu.Buffer]fusedSlot) (command, cmdInfo, bool) {
	var bufs []*wgpu.Buffer
	writes := map[*wgpu.Buffer]bool{}
	slot := map[*wgpu.Buffer]int{}
	for _, in := range run {
		k, _ := parseKernel(in.shader)
		for j, b := range k.binds {
			buf := in.bufs[j]
			if _, ok := slot[buf]; !ok {
				slot[buf] = len(bufs)
				bufs = append(bufs, buf)
			}
			writes[buf] = writes[buf] || b.writes
		}
	}
	var src, members, body, offsetFns strings.Builder
	var raw []byte
	head := make([]byte, 16) // the largest element count, then padding
	threads := 0
	included := map[string]bool{}
	var offsets []uint64
	var main string
	for m, in := range run {
		k, _ := parseKernel(in.shader)
		names := map[string]string{"params": fmt.Sprintf("P.o%d", m)}
		for j, b := range k.binds {
			names[b.name] = fmt.Sprintf("fz_buf%d", slot[in.bufs[j]])
		}
		if k.head {
			// The head's own declarations and entry point, over member
			// 0's params, each store followed by the epilogue.
			src.WriteString(renameIdents(k.prelude, names, m))
			main = storeRE.ReplaceAllString(renameIdents(k.body, names, m), "{ let fz_e = $2; $1[fz_e] = $3; fz_epilogue(fz_e); }")
		} else if !included[in.shader] {
			included[in.shader] = true
			src.WriteString(k.prelude)
		}
		for _, lib := range k.uses {
			if lib != "broadcast" && !included["lib/"+lib] {
				included["lib/"+lib] = true
				code, err := fs.ReadFile(shaders, path.Join("shaders/lib", lib+".wgsl"))
				if err != nil {
					return command{}, cmdInfo{}, false
				}
				src.Write(code)
				src.WriteString("\n")
			}
		}
		threads = max(threads, in.threads)
		offsets = append(offsets, uint64(16+len(raw)))
		raw = append(raw, encodeParams(in.shader, in.params)...)
		fmt.Fprintf(&members, "    @align(16) o%d: %s,\n", m, k.paramsTy)
		if k.head {
			continue
		}
		fmt.Fprintf(&body, "        { // %s\n%s", in.shader, renameIdents(k.prologue, names, m))
		fmt.Fprintf(&body, "        if (i < %s) {\n", renameIdents(k.bound, names, m))
		inner := renameIdents(k.body, names, m)
		if k.loopVar != "i" {
			inner = fmt.Sprintf("        let %s = i;\n%s", k.loopVar, inner)
		}
		if regexp.MustCompile(`\b(continue|break)\b`).MatchString(k.body) {
			// A continue or break of the kernel's own loop ends this
			// member's element, not the fused loop's: a loop run once.
			inner = fmt.Sprintf("        for (var once = 0u; once < 1u; once++) {\n%s        }\n", inner)
		}
		fmt.Fprintf(&body, "%s        }\n        }\n", inner)
		if strings.Contains(k.body, "offsetOf(") {
			fmt.Fprintf(&offsetFns, fusedOffsetFn, m)
		}
	}
	putU32(head, uint32(threads))
	fmt.Fprintf(&src, "\nstruct Fused {\n    head: vec4<u32>,\n%s}\n\n@group(0) @binding(0) var<uniform> P: Fused;\n", members.String())
	for j, b := range bufs {
		access := "read"
		if writes[b] {
			access = "read_write"
		}
		fmt.Fprintf(&src, "@group(0) @binding(%d) var<storage, %s> fz_buf%d: array<f32>;\n", j+1, access, j)
	}
	src.WriteString(offsetFns.String())
	if main != "" {
		threads = run[0].threads // the product's workgroups: the epilogue rides on its stores
		fmt.Fprintf(&src, "\nfn fz_epilogue(i: u32) {\n%s}\n\n%s", body.String(), main)
	} else {
		fmt.Fprintf(&src, `
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    for (var i = gid.x; i < P.head.x; i += nwg.x * 64u) {
%s    }
}
`, body.String())
	}
	code := src.String()
	sum := sha256.Sum256([]byte(code))
	name := fusedPrefix + hex.EncodeToString(sum[:8])
	if _, ok := a.d.pipelines[name]; !ok {
		pipe, err := a.d.compile(name, code)
		if err != nil {
			return command{}, cmdInfo{}, false
		}
		a.d.pipelines[name] = pipe
	}
	all := append(head, raw...)
	u, err := a.d.newUniform(name, len(all))
	if err != nil {
		return command{}, cmdInfo{}, false
	}
	if err := a.d.queue.WriteBuffer(u, 0, all); err != nil {
		u.Release()
		return command{}, cmdInfo{}, false
	}
	c, err := a.d.newCommand(name, ceilDiv(threads, workgroupSize), u, bufs)
	if err != nil {
		u.Release()
		return command{}, cmdInfo{}, false
	}
	p.fused = append(p.fused, u)
	for m, in := range run {
		moved[in.uniform] = fusedSlot{u, offsets[m]}
	}
	return c, cmdInfo{shader: name, bufs: bufs, uniform: u, threads: threads}, true
}

// fusedOffsetFn is lib/broadcast.wgsl's offsetOf over the params of member
// %[1]d of the fused uniform rather than the kernel's own (a function per
// member: WGSL indexes a uniform's arrays dynamically, not a value's).
const fusedOffsetFn = `
fn fusedOffset%[1]d(i: u32, row: u32) -> u32 {
    var rem = i;
    var off = 0u;
    for (var k = P.o%[1]d.ndim; k > 0u; k--) {
        let d = k - 1u;
        let len = P.o%[1]d.st[d / 4u][d %% 4u];
        off += (rem %% len) * P.o%[1]d.st[2u * row + d / 4u][d %% 4u];
        rem /= len;
    }
    return off;
}
`

// renameIdents renames the identifiers of body found in names, and turns
// offsetOf(i, r) into member m's fusedOffset.
func renameIdents(body string, names map[string]string, m int) string {
	keys := make([]string, 0, len(names))
	for k := range names {
		keys = append(keys, regexp.QuoteMeta(k))
	}
	re := regexp.MustCompile(`\b(` + strings.Join(keys, "|") + `)\b`)
	out := re.ReplaceAllStringFunc(body, func(id string) string { return names[id] })
	return strings.ReplaceAll(out, "offsetOf(", fmt.Sprintf("fusedOffset%d(", m))
}

// putU32 stores v little-endian at b[0:4].
func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
