// uses: params
// matmul.wgsl: batched matrix product c[ob] = sum over r of op(a[f])·op(b[f]),
// f = ob*reduce + r, as autograd.MatMul (its CPU twin) followed by the sum
// over broadcast batch dimensions that a gradient needs (autograd's sumTo).
// op(a) is m×k and op(b) k×n, each addressed through a row and a column
// stride, so a transposed operand costs nothing. The batch index f is split
// into up to four digits (dim0 outermost); digit d moves a by a_stride_d and
// b by b_stride_d elements (0 for a broadcast dimension), from a_off and
// b_off; c's matrices start at c_off.
//
// Tiled: each workgroup computes a 32×32 tile of c, 4×4 outputs per
// invocation, staging 32×16 blocks of op(a) and 16×32 blocks of op(b) in
// workgroup memory, so each element read from storage is used 32 times.
// No atomics: every output is computed whole by one invocation, summing over
// k in increasing order.
//
// Entry point: main; workgroup size 64; a workgroup-stride loop over the
// tiles of all output matrices.
// Bindings (group 0):
//   0 uniform MatMulParams (Go: matMulParams)
//   1 storage read  a: array<f32>
//   2 storage read  b: array<f32>
//   3 storage rw    c: array<f32>, [batches][m][n]

@group(0) @binding(0) var<uniform> params: MatMulParams;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

const TILE: u32 = 32u; // outputs per tile side
const KT: u32 = 16u;   // depth of one staged block

var<workgroup> a_tile: array<f32, 512>; // [KT][TILE]
var<workgroup> b_tile: array<f32, 512>; // [KT][TILE]

// offsets returns the starts of a's and b's matrices for batch index f.
fn offsets(f: u32) -> vec2<u32> {
    var rest = f;
    let d3 = rest % params.dim3;
    rest /= params.dim3;
    let d2 = rest % params.dim2;
    rest /= params.dim2;
    let d1 = rest % params.dim1;
    let d0 = rest / params.dim1;
    let oa = params.a_off + d0 * params.a_stride0 + d1 * params.a_stride1 + d2 * params.a_stride2 + d3 * params.a_stride3;
    let ob = params.b_off + d0 * params.b_stride0 + d1 * params.b_stride1 + d2 * params.b_stride2 + d3 * params.b_stride3;
    return vec2<u32>(oa, ob);
}

@compute @workgroup_size(64)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let m = params.m;
    let n = params.n;
    let k = params.k;
    let tiles_m = (m + TILE - 1u) / TILE;
    let tiles_n = (n + TILE - 1u) / TILE;
    let per_matrix = tiles_m * tiles_n;
    let row = (lid / 8u) * 4u; // this invocation's 4×4 block within the tile
    let col = (lid % 8u) * 4u;
    for (var t = wid.x; t < params.batches * per_matrix; t += nwg.x) {
        let ob = t / per_matrix;
        let i0 = ((t % per_matrix) / tiles_n) * TILE;
        let j0 = (t % tiles_n) * TILE;
        // Zeroed explicitly: naga hoists declarations out of loops, so a
        // bare `var acc;` keeps the previous tile's sums.
        var acc = array<vec4<f32>, 4>(vec4<f32>(), vec4<f32>(), vec4<f32>(), vec4<f32>());
        for (var r = 0u; r < params.reduce; r++) {
            let off = offsets(ob * params.reduce + r);
            for (var k0 = 0u; k0 < k; k0 += KT) {
                for (var e = lid; e < TILE * KT; e += 64u) {
                    let i = e / KT; // a: consecutive invocations read along k
                    let kk = e % KT;
                    var v = 0.0;
                    if (i0 + i < m && k0 + kk < k) {
                        v = a[off.x + (i0 + i) * params.a_rs + (k0 + kk) * params.a_cs];
                    }
                    a_tile[kk * TILE + i] = v;
                    let kb = e / TILE; // b: consecutive invocations read along n
                    let j = e % TILE;
                    var w = 0.0;
                    if (k0 + kb < k && j0 + j < n) {
                        w = b[off.y + (k0 + kb) * params.b_rs + (j0 + j) * params.b_cs];
                    }
                    b_tile[kb * TILE + j] = w;
                }
                workgroupBarrier();
                for (var kk = 0u; kk < KT; kk++) {
                    let bv = vec4<f32>(b_tile[kk * TILE + col], b_tile[kk * TILE + col + 1u],
                                       b_tile[kk * TILE + col + 2u], b_tile[kk * TILE + col + 3u]);
                    for (var ii = 0u; ii < 4u; ii++) {
                        acc[ii] += a_tile[kk * TILE + row + ii] * bv;
                    }
                }
                workgroupBarrier();
            }
        }
        let base = params.c_off + ob * m * n;
        for (var ii = 0u; ii < 4u; ii++) {
            let i = i0 + row + ii;
            for (var jj = 0u; jj < 4u; jj++) {
                let j = j0 + col + jj;
                if (i < m && j < n) {
                    c[base + i * n + j] = acc[ii][jj];
                }
            }
        }
    }
}
