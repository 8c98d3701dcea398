// The training page: loads the WebAssembly trainer, starts it, and draws
// what it reports. window.dlcaTrainState holds everything reported so far
// (the tests read it).
"use strict";

(function () {
  const S = JSON.parse(document.getElementById("dlca-settings").textContent);
  const $ = (id) => document.getElementById(id);
  const state = window.dlcaTrainState = { ready: false, running: false, done: false, error: null, metrics: [] };
  $("title").textContent = S.experiment;
  $("iterations").value = S.iterations || "";
  $("seed").value = S.seed;

  window.dlcaTrainProgress = function (m, grid) {
    if (m.kind === "error") { state.error = m.message; state.running = false; $("status").textContent = "error: " + m.message; console.error("trainer: " + m.message); return; }
    if (m.kind === "done") { state.done = true; state.running = false; $("status").textContent += " - done in " + m.seconds.toFixed(1) + " s"; return; }
    state.metrics.push({ iteration: m.iteration, soft: m.soft, hard: m.hard, gates: m.gates, ms: m.ms });
    $("status").textContent = "iteration " + m.iteration + " of " + m.iterations + ": soft loss " + m.soft.toFixed(4) +
      ", hard loss " + m.hard + ", " + m.gates + " active gates, " + m.ms.toFixed(0) + " ms";
    drawGrid(grid, m.h, m.w, m.c);
    drawLoss();
  };

  // drawGrid paints channel 0 of the rollout in black and white.
  function drawGrid(bits, h, w, c) {
    const cv = $("grid"), s = Math.max(1, Math.floor(256 / Math.max(h, w)));
    cv.width = w * s; cv.height = h * s;
    const ctx = cv.getContext("2d");
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        ctx.fillStyle = bits[(y * w + x) * c] ? "#fff" : "#000";
        ctx.fillRect(x * s, y * s, s, s);
      }
  }

  // drawLoss plots the soft (orange) and hard (blue) losses, log scale.
  function drawLoss() {
    const cv = $("loss"), ctx = cv.getContext("2d"), W = cv.width, H = cv.height, m = state.metrics;
    ctx.fillStyle = "#000"; ctx.fillRect(0, 0, W, H);
    const n = Math.max(2, m.length), vals = m.flatMap((v) => [v.soft, v.hard]).filter((v) => v > 0);
    if (!vals.length) return;
    const lo = Math.log10(Math.min(...vals)), hi = Math.log10(Math.max(...vals)) + 1e-9;
    const yOf = (v) => v > 0 ? H - 4 - (Math.log10(v) - lo) / (hi - lo) * (H - 8) : H - 4;
    for (const [key, colour] of [["soft", "#f90"], ["hard", "#4af"]]) {
      ctx.strokeStyle = colour; ctx.beginPath();
      m.forEach((v, i) => { const x = i / (n - 1) * (W - 1); i ? ctx.lineTo(x, yOf(v[key])) : ctx.moveTo(x, yOf(v[key])); });
      ctx.stroke();
    }
  }

  function start() {
    state.metrics = []; state.done = false; state.error = null; state.running = true;
    dlcaTrain.start(S.experiment, +$("iterations").value || 0, +$("seed").value || 0);
  }
  $("start").onclick = start;
  $("stop").onclick = () => { dlcaTrain.stop(); };

  // Decompress and start the trainer.
  (async function () {
    const b64 = document.getElementById("dlca-wasm").textContent.trim();
    const zipped = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
    const wasm = await new Response(new Blob([zipped]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer();
    const go = new Go();
    const { instance } = await WebAssembly.instantiate(wasm, go.importObject);
    go.run(instance);
    state.ready = true;
    state.webgpu = !!navigator.gpu;
    $("status").textContent = "ready: press start (WebGPU " + (navigator.gpu ? "offered" : "not offered") + " by this browser; the trainer runs on the CPU)";
  })().catch((e) => { state.error = String(e); console.error("loading the trainer: " + e); $("status").textContent = "cannot load the trainer: " + e; });
})();
