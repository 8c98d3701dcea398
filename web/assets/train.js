// The training page: loads the WebAssembly trainer, starts it, draws what
// it reports, and hands on what it trained (model.json, the circuit page).
// window.dlcaTrainState holds everything reported so far (the tests read
// it).
"use strict";

(function () {
  const S = JSON.parse(document.getElementById("dlca-settings").textContent);
  const C = S.colours; // the viewer's colours (viewer/painter), as CSS
  const $ = (id) => document.getElementById(id);
  // device: what the trainer found ({webgpu, adapter, software, error});
  // speeds: the last run's iterations per second on each device.
  const state = window.dlcaTrainState = { ready: false, running: false, done: false, error: null, metrics: [], trained: false, device: null, speeds: {} };
  const deviceName = { webgpu: "WebGPU", cpu: "the CPU" };
  $("title").textContent = S.experiment;
  $("iterations").value = S.iterations; // the experiment's, unless the export gave others
  $("seed").value = S.seed;

  window.dlcaTrainProgress = function (m, grid, wrong) {
    if (m.kind === "device") { // the trainer's WebGPU device, opened once at start
      state.device = { webgpu: m.webgpu, adapter: m.adapter, software: !!m.software, error: m.error };
      const opt = $("device").querySelector("option[value=webgpu]");
      opt.disabled = !m.webgpu;
      $("device").value = m.webgpu ? "webgpu" : "cpu";
      $("adapter").textContent = m.webgpu ? "WebGPU adapter: " + m.adapter + (m.software ? " (a software adapter, on the CPU)" : "")
        : "no WebGPU (" + m.error + "): the trainer runs on the CPU";
      state.ready = true;
      $("status").textContent = "ready: press start (on " + deviceName[$("device").value] + ")";
      return;
    }
    if (m.kind === "error") { state.error = m.message; state.running = false; $("status").textContent = "error: " + m.message; console.error("trainer: " + m.message); return; }
    if (m.kind === "done") {
      state.done = true; state.running = false;
      state.trained = dlcaTrain.model() !== "";
      $("download").disabled = $("circuit").disabled = !state.trained;
      $("status").textContent += " - done in " + m.seconds.toFixed(1) + " s";
      return;
    }
    state.metrics.push({ iteration: m.iteration, soft: m.soft, hard: m.hard, gates: m.gates, ms: m.ms, device: m.device });
    const ms = state.metrics.reduce((s, v) => s + v.ms, 0);
    state.speeds[m.device] = state.metrics.length / (ms / 1000);
    $("status").textContent = "iteration " + m.iteration + " of " + m.iterations + " on " + deviceName[m.device] + ": soft loss " + m.soft.toFixed(4) +
      ", hard loss " + m.hard + ", " + m.gates + " active gates, " + m.ms.toFixed(0) + " ms";
    $("speeds").textContent = "iterations per second: " + Object.keys(state.speeds).sort().map((d) => deviceName[d] + " " + state.speeds[d].toFixed(1)).join(", ");
    drawGrid(grid, wrong, m.h, m.w, m.c);
    drawLoss(m.iterations);
  };

  // drawGrid paints the rollout as the viewer does (viewer/painter):
  // channel 0 black for 0 and white for 1, or channels 0-2 as red, green
  // and blue for a colour experiment; cells that differ from the target
  // are framed in the viewer's colour for wrong cells.
  function drawGrid(bits, wrong, h, w, c) {
    const cv = $("grid"), s = Math.max(1, Math.floor(256 / Math.max(h, w)));
    cv.width = w * s; cv.height = h * s;
    const ctx = cv.getContext("2d"), rgb = S.rgb && c >= 3;
    for (let y = 0; y < h; y++)
      for (let x = 0; x < w; x++) {
        const i = (y * w + x) * c;
        ctx.fillStyle = rgb ? "rgb(" + 255 * bits[i] + "," + 255 * bits[i + 1] + "," + 255 * bits[i + 2] + ")" : bits[i] ? "#fff" : "#000";
        ctx.fillRect(x * s, y * s, s, s);
        if (wrong && wrong[y * w + x]) { // as viewer/painter's MarkWrong
          const k = Math.max(1, Math.floor(s / 9));
          ctx.fillStyle = C.wrong;
          if (s < 3) ctx.fillRect(x * s, y * s, s, s);
          else { ctx.fillRect(x * s, y * s, s, k); ctx.fillRect(x * s, (y + 1) * s - k, s, k); ctx.fillRect(x * s, y * s, k, s); ctx.fillRect((x + 1) * s - k, y * s, k, s); }
        }
      }
  }

  // drawLoss plots the soft and hard losses against the iteration, on a
  // log scale as the viewer's panel does, with axes, tick labels and a
  // legend.
  function drawLoss(total) {
    const cv = $("loss"), ctx = cv.getContext("2d"), W = cv.width, H = cv.height, m = state.metrics;
    const L = 52, R = 10, T = 22, B = 34; // the margins: tick labels left and below, legend above
    ctx.fillStyle = C.background; ctx.fillRect(0, 0, W, H);
    ctx.font = "11px system-ui, sans-serif";
    const vals = m.flatMap((v) => [v.soft, v.hard]).filter((v) => v > 0 && isFinite(v));
    const hi = vals.length ? Math.max(...vals) : 1, lo = hi / 1000; // as the viewer: three decades
    const lhi = Math.log10(hi), llo = Math.log10(lo);
    const n = Math.max(2, total || m.length);
    const xOf = (it) => L + (it - 1) / (n - 1) * (W - L - R);
    const yOf = (v) => T + (lhi - Math.log10(Math.min(hi, Math.max(lo, v)))) / (lhi - llo) * (H - T - B);
    // Axes and ticks.
    ctx.strokeStyle = C.axis; ctx.fillStyle = C.text; ctx.lineWidth = 1;
    ctx.beginPath(); ctx.moveTo(L + 0.5, T); ctx.lineTo(L + 0.5, H - B + 0.5); ctx.lineTo(W - R, H - B + 0.5); ctx.stroke();
    ctx.textAlign = "right"; ctx.textBaseline = "middle";
    for (let d = Math.ceil(llo); d <= Math.floor(lhi); d++) {
      const y = Math.round(yOf(10 ** d)) + 0.5;
      ctx.beginPath(); ctx.moveTo(L - 4, y); ctx.lineTo(L, y); ctx.stroke();
      ctx.fillText(Number((10 ** d).toPrecision(1)).toString(), L - 6, y);
    }
    ctx.textAlign = "center"; ctx.textBaseline = "top";
    for (const it of xTicks(n)) {
      const x = Math.round(xOf(it)) + 0.5;
      ctx.beginPath(); ctx.moveTo(x, H - B); ctx.lineTo(x, H - B + 4); ctx.stroke();
      ctx.fillText(String(it), x, H - B + 6);
    }
    ctx.fillText("iteration", L + (W - L - R) / 2, H - 14);
    ctx.save(); ctx.translate(12, T + (H - T - B) / 2); ctx.rotate(-Math.PI / 2); ctx.textBaseline = "middle"; ctx.fillText("loss (log)", 0, 0); ctx.restore();
    // Legend.
    ctx.textAlign = "left"; ctx.textBaseline = "middle";
    [["soft", "soft loss"], ["hard", "hard loss"]].forEach(([key, label], k) => {
      const x = L + 8 + k * 90;
      ctx.strokeStyle = C[key]; ctx.lineWidth = 2;
      ctx.beginPath(); ctx.moveTo(x, 11); ctx.lineTo(x + 18, 11); ctx.stroke();
      ctx.fillStyle = C.text; ctx.fillText(label, x + 22, 11);
    });
    // The curves.
    ctx.lineWidth = 1.5;
    for (const key of ["soft", "hard"]) {
      ctx.strokeStyle = C[key]; ctx.beginPath();
      m.forEach((v, i) => { const x = xOf(v.iteration), y = yOf(v[key]); i ? ctx.lineTo(x, y) : ctx.moveTo(x, y); });
      ctx.stroke();
    }
  }

  // xTicks returns about five round iteration numbers from 1 to n.
  function xTicks(n) {
    const raw = (n - 1) / 5, p = 10 ** Math.floor(Math.log10(Math.max(1, raw)));
    const step = [1, 2, 5, 10].map((f) => f * p).find((s) => s >= raw) || p;
    const ticks = [1];
    for (let t = step; t <= n; t += step) if (t > 1) ticks.push(t);
    return ticks;
  }

  function start() {
    state.metrics = []; state.done = false; state.error = null; state.running = true; state.trained = false;
    $("download").disabled = $("circuit").disabled = true;
    dlcaTrain.start(S.config, +$("iterations").value || 0, +$("seed").value || 0, $("device").value);
  }

  // blobURL hands the trainer's text to the browser, as a file or a new
  // tab; the trainer answers "error: ..." when it cannot write it.
  function blobURL(text, type) {
    if (text.startsWith("error: ")) { state.error = text; $("status").textContent = text; throw new Error(text); }
    return URL.createObjectURL(new Blob([text], { type: type }));
  }
  $("start").onclick = start;
  $("stop").onclick = () => { dlcaTrain.stop(); };
  $("download").onclick = () => {
    const a = document.createElement("a");
    a.href = blobURL(dlcaTrain.model(), "application/json"); a.download = "model.json";
    document.body.appendChild(a); a.click(); a.remove();
  };
  $("circuit").onclick = () => {
    state.circuitPage = blobURL(dlcaTrain.circuitPage(), "text/html");
    window.open(state.circuitPage, "_blank");
  };

  // Decompress and start the trainer (dlcaRunGo: internal/htmlpage).
  dlcaRunGo("dlca-wasm").then(() => { // it reports the WebGPU device (kind "device"), then the page is ready
    state.webgpu = !!navigator.gpu;
    $("status").textContent = "looking for WebGPU...";
    drawLoss(S.iterations);
  }).catch((e) => { state.error = String(e); console.error("loading the trainer: " + e); $("status").textContent = "cannot load the trainer: " + e; });
})();
