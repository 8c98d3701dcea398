// autograd/clear.wgsl: buf[i] = 0 for every 4-byte element of the buffer bound (its
// whole size, as a buffer clear). The browser's WebGPU backend of
// cogentcore/webgpu has no CommandEncoder.ClearBuffer, so there Device.submit
// clears with this kernel (clearByKernel); wgpu-native clears with
// ClearBuffer.
//
// Entry point: main; workgroup size 64; a grid-stride loop over the
// buffer's elements (arrayLength).
// Bindings (group 0):
//   0 storage rw    buf: array<u32>, the whole buffer

@group(0) @binding(0) var<storage, read_write> buf: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let n = arrayLength(&buf);
    for (var i = gid.x; i < n; i += nwg.x * 64u) {
        buf[i] = 0u;
    }
}
