// The page: controls, drawing and the mouse, around Grid and Sim. The
// object window.dlca is its programming interface (the tests drive it).
"use strict";

(function () {
  const D = JSON.parse(document.getElementById("dlca-data").textContent);
  const seed = BigInt(D.seed);
  const sim = new Sim(D.channels, D.periodic);
  const brush = 3; // the side of the square the mouse wipes, as in dlca-view
  let cur, next, size, target = null, t = 0, playing = true, async = false;
  let speed = 10, channel = 0, resets = 0, carry = 0, lastTime = null;
  const $ = (id) => document.getElementById(id);
  const canvas = $("grid"), ctx = canvas.getContext("2d");

  // The random state: the page's own generator (mulberry32), seeded from
  // the page's seed and the number of resets.
  function randomBits(g) {
    let a = (Number(seed & 0xffffffffn) ^ Math.imul(++resets, 0x9e3779b9)) >>> 0;
    const rnd = () => {
      a = (a + 0x6d2b79f5) | 0;
      let z = Math.imul(a ^ (a >>> 15), 1 | a);
      z = (z + Math.imul(z ^ (z >>> 7), 61 | z)) ^ z;
      return z ^ (z >>> 14);
    };
    const last = lastMask(g.w);
    for (const p of g.planes) for (let i = 0; i < p.length; i++) p[i] = (i % g.ww === g.ww - 1) ? rnd() & last : rnd();
  }

  // setSize switches to size s (an entry of D.sizes, or {h, w}) and resets.
  function setSize(s) {
    size = s;
    cur = new Grid(s.h, s.w, D.channels);
    next = new Grid(s.h, s.w, D.channels);
    target = null;
    if (s.target) {
      const g = new Grid(s.h, s.w, s.targetChannels.length);
      g.setCells(unpackCells(s.target, s.h * s.w * s.targetChannels.length));
      target = g;
    }
    $("model").disabled = !s.init;
    reset(s.init ? "model" : "random");
  }

  // reset sets the model's initial state ("model") or random bits.
  function reset(kind) {
    if (kind === "model" && size.init) cur.setCells(unpackCells(size.init, size.h * size.w * D.channels));
    else randomBits(cur);
    t = 0;
    draw();
  }

  function step(n) {
    for (let i = 0; i < n; i++) {
      sim.step(next, cur, async, D.fireRate, seed, t);
      [cur, next] = [next, cur];
      t++;
    }
  }

  // wrong counts the cells whose target channels differ from the target,
  // or returns -1 without one.
  function wrong() {
    if (!target) return -1;
    let n = 0;
    for (let j = 0; j < size.targetChannels.length; j++) {
      const p = cur.planes[size.targetChannels[j]], q = target.planes[j];
      for (let i = 0; i < p.length; i++) n += popcount32(p[i] ^ q[i]);
    }
    return n;
  }

  // markWrong frames the cells whose target channels differ from the
  // target as viewer/painter's MarkWrong does: in its WrongColour, a frame
  // max(1, s/9) pixels thick, or the whole cell when cells are under 3
  // pixels wide.
  function markWrong(px, W, s) {
    if (!target) return;
    const [r, g, b] = D.wrongRGB, colour = (255 << 24) | (b << 16) | (g << 8) | r;
    const thick = Math.max(1, Math.floor(s / 9));
    const fill = (x0, y0, x1, y1) => { for (let py = y0; py < y1; py++) px.fill(colour, py * W + x0, py * W + x1); };
    for (let y = 0; y < cur.h; y++)
      for (let x = 0; x < cur.w; x++) {
        let differs = false;
        for (let j = 0; j < size.targetChannels.length && !differs; j++) differs = cur.get(y, x, size.targetChannels[j]) !== target.get(y, x, j);
        if (!differs) continue;
        const x0 = x * s, y0 = y * s, x1 = x0 + s, y1 = y0 + s;
        if (s < 3) { fill(x0, y0, x1, y1); continue; }
        fill(x0, y0, x1, y0 + thick); fill(x0, y1 - thick, x1, y1);
        fill(x0, y0, x0 + thick, y1); fill(x1 - thick, y0, x1, y1);
      }
  }

  // scale is the pixels per cell side: about 512 pixels across, at least 1.
  function scale() { return Math.max(1, Math.floor(512 / Math.max(cur.h, cur.w))); }

  // draw paints the grid as viewer/painter does: channel 'channel' in black
  // and white, or channels 0-2 as red, green, blue.
  function draw() {
    const s = scale(), W = cur.w * s, H = cur.h * s;
    if (canvas.width !== W || canvas.height !== H) {
      canvas.width = W; canvas.height = H;
      canvas.style.width = W + "px"; canvas.style.height = H + "px";
    }
    const img = ctx.createImageData(W, H), px = new Uint32Array(img.data.buffer);
    const rgb = D.rgb && D.channels >= 3;
    for (let y = 0; y < cur.h; y++) {
      for (let x = 0; x < cur.w; x++) {
        let r, g, b;
        if (rgb) { r = cur.get(y, x, 0) * 255; g = cur.get(y, x, 1) * 255; b = cur.get(y, x, 2) * 255; }
        else r = g = b = cur.get(y, x, channel) * 255;
        const colour = (255 << 24) | (b << 16) | (g << 8) | r; // RGBA bytes, little-endian
        for (let py = y * s; py < (y + 1) * s; py++) px.fill(colour, py * W + x * s, py * W + (x + 1) * s);
      }
    }
    markWrong(px, W, s);
    ctx.putImageData(img, 0, 0);
    const w = wrong();
    $("status").textContent = "step " + t + (w >= 0 ? ", " + w + " wrong cells" : "") +
      ", " + cur.h + "x" + cur.w + (async ? ", async" : ", sync") + (playing ? "" : ", paused");
  }

  function frame(now) {
    if (playing) {
      if (lastTime !== null) carry += Math.min(1, (now - lastTime) / 1000) * speed;
      const n = Math.floor(carry);
      carry -= n;
      if (n > 0) { step(n); draw(); }
    }
    lastTime = now;
    requestAnimationFrame(frame);
  }

  // Damage: dragging wipes a brush x brush square at each cell the pointer
  // crosses, along a straight line so that fast drags leave no gaps.
  let dragFrom = null;
  function cellAt(e) {
    const r = canvas.getBoundingClientRect(), s = scale();
    return [Math.floor((e.clientY - r.top) / s), Math.floor((e.clientX - r.left) / s)];
  }
  function wipeTo(c) {
    const from = dragFrom || c, n = Math.max(Math.abs(c[0] - from[0]), Math.abs(c[1] - from[1]));
    const lo = (brush - 1) >> 1;
    for (let i = 0; i <= n; i++) {
      const y = n ? from[0] + Math.round((c[0] - from[0]) * i / n) : c[0];
      const x = n ? from[1] + Math.round((c[1] - from[1]) * i / n) : c[1];
      cur.wipe(y - lo, x - lo, y - lo + brush, x - lo + brush);
    }
    dragFrom = c;
    draw();
  }
  canvas.addEventListener("mousedown", (e) => { dragFrom = null; wipeTo(cellAt(e)); });
  canvas.addEventListener("mousemove", (e) => { if (e.buttons & 1) wipeTo(cellAt(e)); else dragFrom = null; });
  window.addEventListener("mouseup", () => { dragFrom = null; });

  // Controls.
  function setPlaying(p) { playing = p; $("play").textContent = p ? "pause" : "play"; draw(); }
  $("play").onclick = () => setPlaying(!playing);
  $("step").onclick = () => { setPlaying(false); step(1); draw(); };
  $("speed").oninput = () => { speed = Math.round(Math.pow(10, $("speed").value / 25)); $("speedv").textContent = speed + " steps/s"; };
  $("async").onchange = () => { async = $("async").checked; draw(); };
  $("random").onclick = () => reset("random");
  $("model").onclick = () => reset("model");
  const sizes = $("size");
  D.sizes.forEach((s, i) => { const o = document.createElement("option"); o.value = i; o.textContent = s.h + "x" + s.w; sizes.appendChild(o); });
  sizes.onchange = () => setSize(D.sizes[sizes.value]);
  const chans = $("channel");
  for (let ch = 0; ch < D.channels; ch++) { const o = document.createElement("option"); o.value = ch; o.textContent = "channel " + ch; chans.appendChild(o); }
  chans.disabled = D.rgb && D.channels >= 3;
  chans.onchange = () => { channel = +chans.value; draw(); };
  $("title").textContent = D.name;
  $("info").textContent = D.gates + " gates, " + D.channels + " channels, " + (D.periodic ? "periodic" : "zero") +
    " boundary, fire rate " + D.fireRate;
  document.title = D.name + " - dlca";
  $("speed").oninput();

  setSize(D.sizes[0]);
  requestAnimationFrame(frame);

  window.dlca = {
    // load replaces the grid with an h x w state given cell-major.
    load(h, w, bits) { setSize({ h, w }); cur.setCells(bits); t = 0; draw(); },
    cells: () => cur.cells(),
    run(n) { step(n); draw(); },
    reset,
    size(i) { sizes.value = i; setSize(D.sizes[i]); },
    setPlaying,
    setAsync(a) { $("async").checked = a; async = a; draw(); },
    state: () => ({ step: t, wrong: wrong(), h: cur.h, w: cur.w, playing, async, scale: scale(), gates: D.gates, name: D.name }),
    // bench runs n steps and returns the milliseconds they took.
    bench(n) { const t0 = performance.now(); step(n); const ms = performance.now() - t0; draw(); return ms; },
  };
})();
