// The page's simulator: circuit.Sim's algorithm with 32 cells per word.
// A grid is one Int32Array plane per channel, h rows of ww = ceil(w/32)
// words, cell x of a row in bit x%32 of word x/32, padding bits zero.
"use strict";

class Grid {
  constructor(h, w, c) {
    this.h = h; this.w = w; this.c = c;
    this.ww = (w + 31) >>> 5;
    this.planes = [];
    for (let ch = 0; ch < c; ch++) this.planes.push(new Int32Array(h * this.ww));
  }
  get(y, x, ch) { return (this.planes[ch][y * this.ww + (x >>> 5)] >>> (x & 31)) & 1; }
  set(y, x, ch, v) {
    const p = this.planes[ch], i = y * this.ww + (x >>> 5), bit = 1 << (x & 31);
    p[i] = v ? p[i] | bit : p[i] & ~bit;
  }
  copyFrom(o) { for (let ch = 0; ch < this.c; ch++) this.planes[ch].set(o.planes[ch]); }
  // cells returns the bits cell-major, bits[(y*w+x)*c+ch], as Grid.Cells in Go.
  cells() {
    const out = new Array(this.h * this.w * this.c);
    for (let y = 0; y < this.h; y++)
      for (let x = 0; x < this.w; x++)
        for (let ch = 0; ch < this.c; ch++) out[(y * this.w + x) * this.c + ch] = this.get(y, x, ch);
    return out;
  }
  // setCells loads bits laid out as cells() returns them (any truthy value is 1).
  setCells(bits) {
    for (let y = 0; y < this.h; y++)
      for (let x = 0; x < this.w; x++)
        for (let ch = 0; ch < this.c; ch++) this.set(y, x, ch, bits[(y * this.w + x) * this.c + ch] ? 1 : 0);
  }
  // wipe sets every channel of the cells in [y0, y1) x [x0, x1) to 0, clipped.
  wipe(y0, x0, y1, x1) {
    for (let y = Math.max(0, y0); y < Math.min(this.h, y1); y++)
      for (let x = Math.max(0, x0); x < Math.min(this.w, x1); x++)
        for (let ch = 0; ch < this.c; ch++) this.set(y, x, ch, 0);
  }
}

// unpackCells decodes Go's packCells: base64 of cell-major bits, LSB first.
function unpackCells(b64, n) {
  const s = atob(b64), bits = new Uint8Array(n);
  for (let i = 0; i < n; i++) bits[i] = (s.charCodeAt(i >>> 3) >>> (i & 7)) & 1;
  return bits;
}

// lastMask has the valid bits of a row's last word.
function lastMask(w) { return w % 32 === 0 ? -1 : (1 << (w % 32)) - 1; }

// The fire masks of circuit.FireMask, on BigInt: the same bits for the
// same (seed, step, row), so asynchronous runs match Go's cell for cell.
const M64 = (1n << 64n) - 1n;
function mix64(z) {
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M64;
  return z ^ (z >> 31n);
}
// fireRow writes row y's mask into dst[off .. off+ceil(w/32)).
function fireRow(dst, off, w, q, seed, step, y) {
  let state = mix64(seed ^ mix64(((BigInt(step) << 32n) | BigInt(y >>> 0)) & M64));
  const ww32 = (w + 31) >>> 5, ww64 = (w + 63) >>> 6;
  let tz = 0;
  while (q > 0 && tz < 16 && ((q >>> tz) & 1) === 0) tz++;
  for (let i = 0; i < ww64; i++) {
    let m = 0n;
    if (q >= 65536) {
      m = M64;
    } else if (q > 0) {
      for (let j = tz; j < 16; j++) {
        state = (state + 0xa0761d6478bd642fn) & M64; // wyrand
        const p = state * (state ^ 0xe7037ed1a0b428dbn);
        const r = (p >> 64n) ^ (p & M64);
        m = ((q >>> j) & 1) === 1 ? m | r : m & r;
      }
    }
    dst[off + 2 * i] = Number(m & 0xffffffffn) | 0;
    if (2 * i + 1 < ww32) dst[off + 2 * i + 1] = Number(m >> 32n) | 0;
  }
  dst[off + ww32 - 1] &= lastMask(w);
}

// Sim steps grids of one shape with the generated rule.
class Sim {
  constructor(channels, periodic) { this.c = channels; this.periodic = periodic; this.h = 0; this.w = 0; }
  // shape allocates the scratch planes for h x w grids.
  shape(h, w) {
    if (h === this.h && w === this.w) return;
    this.h = h; this.w = w; this.ww = (w + 31) >>> 5;
    this.sh = [];
    for (let i = 0; i < 3 * this.c; i++) this.sh.push(new Int32Array((h + 2) * this.ww));
    this.fire = new Int32Array(h * this.ww);
  }
  // shift fills the shifted planes of src, halo rows included.
  shift(src) {
    const h = this.h, ww = this.ww, top = (this.w - 1) & 31;
    for (let ch = 0; ch < this.c; ch++) {
      const p = src.planes[ch], west = this.sh[3 * ch], mid = this.sh[3 * ch + 1], east = this.sh[3 * ch + 2];
      for (let r = 0; r < h + 2; r++) {
        let y = r - 1;
        const o = r * ww;
        if (y < 0 || y >= h) {
          if (!this.periodic) { west.fill(0, o, o + ww); mid.fill(0, o, o + ww); east.fill(0, o, o + ww); continue; }
          y = (y + h) % h;
        }
        const s = y * ww;
        const wrapW = this.periodic ? (p[s + ww - 1] >>> top) & 1 : 0;
        const wrapE = this.periodic ? p[s] & 1 : 0;
        // Cell x's west neighbour is cell x-1: every bit moves up by one.
        west[o] = (p[s] << 1) | wrapW;
        for (let k = 1; k < ww; k++) west[o + k] = (p[s + k] << 1) | (p[s + k - 1] >>> 31);
        for (let k = 0; k < ww; k++) mid[o + k] = p[s + k];
        for (let k = 0; k < ww - 1; k++) east[o + k] = (p[s + k] >>> 1) | (p[s + k + 1] << 31);
        east[o + ww - 1] = (p[s + ww - 1] >>> 1) | (wrapE << top);
      }
    }
  }
  // step writes into dst one step from src: synchronous when async is
  // false, else with the fire masks of circuit.FireMask(seed, t, y).
  step(dst, src, async, fireRate, seed, t) {
    this.shape(src.h, src.w);
    this.shift(src);
    const ww = this.ww, n = src.h * ww, last = lastMask(src.w);
    rule(this.sh, dst.planes, ww, n);
    let f = null;
    if (async) {
      f = this.fire;
      const q = Math.floor(fireRate * 65536 + 0.5);
      for (let y = 0; y < src.h; y++) fireRow(f, y * ww, src.w, q, seed, t, y);
    }
    for (let ch = 0; ch < this.c; ch++) {
      const d = dst.planes[ch], s = src.planes[ch];
      if (f) for (let i = 0; i < n; i++) d[i] = (d[i] & f[i]) | (s[i] & ~f[i]);
      for (let i = ww - 1; i < n; i += ww) d[i] &= last;
    }
  }
}

// popcount32 counts the set bits of a 32-bit integer.
function popcount32(v) {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
