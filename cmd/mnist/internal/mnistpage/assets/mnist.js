// The MNIST page: loads the data and the WebAssembly trainer
// (cmd/mnist/internal/pagewasm), starts trainings, plots the loss and the
// held-out accuracy epoch by epoch, classifies what is drawn on the canvas
// and downloads the weights. window.dlcaMNISTState holds everything
// reported so far (the tests read it).
"use strict";

(function () {
  const S = JSON.parse(document.getElementById("dlca-settings").textContent);
  const $ = (id) => document.getElementById(id);
  // device: what the trainer found ({webgpu, adapter, error}); epochs: this
  // training's figures; seconds: the last training's seconds per epoch on
  // each device; prediction: the last ({label, probs}) or null.
  const state = window.dlcaMNISTState = { ready: false, running: false, done: false, error: null, device: null, epochs: [], seconds: {}, prediction: null, trained: false };
  const deviceName = { webgpu: "WebGPU", cpu: "the CPU" };
  const colours = { loss: "#56b4e9", accuracy: "#e69f00", axis: "#808080", text: "#c0c0c0", background: "#101010" };
  $("model").textContent = S.model.toUpperCase();
  $("dataset").textContent = S.dataset === "fashion" ? "Fashion-MNIST" : "MNIST";
  $("count").textContent = S.train + " training images (" + S.test + " held out)";
  $("epochs").value = S.epochs; $("batch").value = S.batch; $("lr").value = S.lr; $("seed").value = S.seed;
  $("start").disabled = true;

  window.dlcaMNISTProgress = function (m) {
    switch (m.kind) {
      case "device": { // the trainer's WebGPU device, opened once at start
        state.device = { webgpu: m.webgpu, adapter: m.adapter, error: m.error };
        $("device").querySelector("option[value=webgpu]").disabled = !m.webgpu;
        $("device").value = m.webgpu ? "webgpu" : "cpu";
        $("adapter").textContent = m.webgpu ? "WebGPU: " + m.adapter : "no WebGPU (" + m.error + "): the trainer runs on the CPU";
        state.ready = true; $("start").disabled = false;
        $("status").textContent = "ready: press train (on " + deviceName[$("device").value] + ")";
        return;
      }
      case "error":
        state.error = m.message; state.running = false; $("start").disabled = false;
        $("status").textContent = "error: " + m.message; console.error("trainer: " + m.message);
        return;
      case "step":
        $("status").textContent = "training on " + deviceName[m.device] + ": epoch " + m.epoch + ", step " + m.step + " of " + m.steps;
        return;
      case "epoch":
        state.epochs.push({ epoch: m.epoch, loss: m.loss, accuracy: m.accuracy, seconds: m.seconds, device: m.device });
        $("status").textContent = "training on " + deviceName[m.device] + ": epoch " + m.epoch + " of " + m.epochs +
          (m.epoch ? ", training loss " + m.loss.toFixed(4) : "") + ", held-out accuracy " + (100 * m.accuracy).toFixed(1) + "%";
        state.trained = true; $("download").disabled = false;
        drawPlot(m.epochs);
        predict(); // the drawing, by the model as it is now
        return;
      case "done": {
        state.done = true; state.running = false; $("start").disabled = false;
        const n = state.epochs.length - 1;
        state.seconds[m.device] = m.seconds / Math.max(1, n);
        $("status").textContent += " - done in " + m.seconds.toFixed(1) + " s";
        $("speeds").textContent = "seconds per epoch: " + Object.keys(state.seconds).sort().map((d) => deviceName[d] + " " + state.seconds[d].toFixed(2)).join(", ");
        return;
      }
    }
  };

  // drawPlot plots the training loss (left axis) and the held-out accuracy
  // (right axis, 0 to 100%) against the epoch.
  function drawPlot(total) {
    const cv = $("plot"), ctx = cv.getContext("2d"), W = cv.width, H = cv.height, e = state.epochs;
    const L = 48, R = 48, T = 24, B = 34;
    ctx.fillStyle = colours.background; ctx.fillRect(0, 0, W, H);
    ctx.font = "11px system-ui, sans-serif";
    const losses = e.map((v) => v.loss).filter((v) => isFinite(v));
    const hi = losses.length ? Math.max(...losses) * 1.1 : 1;
    const n = Math.max(1, total || e.length - 1);
    const xOf = (ep) => L + ep / n * (W - L - R);
    const yLoss = (v) => T + (1 - v / hi) * (H - T - B);
    const yAcc = (a) => T + (1 - a) * (H - T - B);
    ctx.strokeStyle = colours.axis; ctx.fillStyle = colours.text; ctx.lineWidth = 1;
    ctx.beginPath(); ctx.moveTo(L + 0.5, T); ctx.lineTo(L + 0.5, H - B + 0.5); ctx.lineTo(W - R + 0.5, H - B + 0.5); ctx.lineTo(W - R + 0.5, T); ctx.stroke();
    ctx.textBaseline = "middle";
    for (let k = 0; k <= 4; k++) {
      const y = Math.round(T + k / 4 * (H - T - B)) + 0.5;
      ctx.textAlign = "right"; ctx.fillText((hi * (1 - k / 4)).toPrecision(2), L - 6, y);
      ctx.textAlign = "left"; ctx.fillText((100 * (1 - k / 4)) + "%", W - R + 6, y);
    }
    ctx.textAlign = "center"; ctx.textBaseline = "top";
    const every = Math.max(1, Math.ceil(n / 10));
    for (let ep = 0; ep <= n; ep += every) ctx.fillText(String(ep), xOf(ep), H - B + 6);
    ctx.fillText("epoch", L + (W - L - R) / 2, H - 14);
    ctx.textAlign = "left"; ctx.textBaseline = "middle";
    [["loss", "training loss"], ["accuracy", "held-out accuracy"]].forEach(([key, label], k) => {
      const x = L + 8 + k * 130;
      ctx.strokeStyle = colours[key]; ctx.lineWidth = 2;
      ctx.beginPath(); ctx.moveTo(x, 11); ctx.lineTo(x + 18, 11); ctx.stroke();
      ctx.fillStyle = colours.text; ctx.fillText(label, x + 22, 11);
    });
    for (const [key, yOf] of [["loss", yLoss], ["accuracy", yAcc]]) {
      const pts = e.filter((v) => isFinite(v[key]));
      ctx.strokeStyle = colours[key]; ctx.fillStyle = colours[key]; ctx.lineWidth = 1.5; ctx.beginPath();
      pts.forEach((v, i) => { const x = xOf(v.epoch), y = yOf(v[key]); i ? ctx.lineTo(x, y) : ctx.moveTo(x, y); });
      ctx.stroke();
      pts.forEach((v) => { ctx.fillRect(xOf(v.epoch) - 2, yOf(v[key]) - 2, 4, 4); });
    }
  }

  // The drawing canvas: white ink on black, as MNIST's digits.
  // It is read back at every prediction, hence willReadFrequently (else
  // Chromium warns on the console).
  const draw = $("draw"), dctx = draw.getContext("2d", { willReadFrequently: true });
  let inked = false, last = null;
  function clearDrawing() {
    dctx.fillStyle = "#000"; dctx.fillRect(0, 0, draw.width, draw.height);
    inked = false; state.prediction = null;
    $("prediction").textContent = "-"; $("probs").textContent = "";
    $("input").getContext("2d").clearRect(0, 0, 28, 28);
  }
  function at(ev) { const r = draw.getBoundingClientRect(); return [(ev.clientX - r.left) * draw.width / r.width, (ev.clientY - r.top) * draw.height / r.height]; }
  draw.addEventListener("pointerdown", (ev) => {
    last = at(ev); stroke(last, last);
    try { draw.setPointerCapture(ev.pointerId); } catch (e) { /* a pointer no longer down: nothing to capture */ }
  });
  draw.addEventListener("pointermove", (ev) => { if (!last) return; const p = at(ev); stroke(last, p); last = p; });
  const end = () => { if (last) { last = null; predict(); } };
  draw.addEventListener("pointerup", end);
  draw.addEventListener("pointercancel", end);
  function stroke(a, b) {
    dctx.strokeStyle = "#fff"; dctx.lineWidth = 22; dctx.lineCap = "round";
    dctx.beginPath(); dctx.moveTo(a[0], a[1]); dctx.lineTo(b[0], b[1]); dctx.stroke();
    inked = true;
  }
  $("clear").onclick = clearDrawing;

  // toInput returns the drawing as MNIST presents a digit: 28x28 pixels,
  // the ink's bounding box scaled to fit 20x20 and its centre of mass moved
  // to the middle; null when nothing is drawn.
  function toInput() {
    const img = dctx.getImageData(0, 0, draw.width, draw.height).data;
    let x0 = draw.width, y0 = draw.height, x1 = -1, y1 = -1;
    for (let y = 0; y < draw.height; y++)
      for (let x = 0; x < draw.width; x++)
        if (img[4 * (y * draw.width + x)] > 0) { x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y); }
    if (x1 < 0) return null;
    const w = x1 - x0 + 1, h = y1 - y0 + 1, s = 20 / Math.max(w, h);
    const small = document.createElement("canvas"); small.width = small.height = 28;
    const sctx = small.getContext("2d", { willReadFrequently: true });
    const place = (dx, dy) => {
      sctx.fillStyle = "#000"; sctx.fillRect(0, 0, 28, 28);
      sctx.drawImage(draw, x0, y0, w, h, 14 - w * s / 2 + dx, 14 - h * s / 2 + dy, w * s, h * s);
      return sctx.getImageData(0, 0, 28, 28).data;
    };
    let px = place(0, 0), sum = 0, cx = 0, cy = 0;
    for (let i = 0; i < 28 * 28; i++) { const v = px[4 * i]; sum += v; cx += v * (i % 28); cy += v * Math.floor(i / 28); }
    if (sum > 0) px = place(Math.round(13.5 - cx / sum), Math.round(13.5 - cy / sum));
    $("input").getContext("2d").putImageData(new ImageData(px, 28, 28), 0, 0);
    const grey = new Uint8Array(28 * 28);
    for (let i = 0; i < grey.length; i++) grey[i] = px[4 * i];
    return grey;
  }

  // predict classifies the drawing with the model as of the last epoch
  // and shows the class and every class's probability.
  function predict() {
    if (!inked || !window.dlcaMNIST) return;
    const grey = toInput();
    const probs = grey && dlcaMNIST.predict(grey);
    if (!probs) { $("prediction").textContent = grey ? "train first" : "-"; return; }
    if (typeof probs === "string") { state.error = probs; console.error("predict: " + probs); return; }
    let best = 0;
    probs.forEach((p, i) => { if (p > probs[best]) best = i; });
    state.prediction = { label: best, probs: probs };
    $("prediction").textContent = S.classes[best];
    $("probs").innerHTML = "";
    probs.forEach((p, i) => {
      const row = $("probs").insertRow();
      row.insertCell().textContent = S.classes[i];
      const bar = document.createElement("span"); bar.className = "bar"; bar.style.width = Math.round(100 * p) + "px";
      row.insertCell().appendChild(bar);
      row.insertCell().textContent = (100 * p).toFixed(1) + "%";
    });
  }

  $("start").onclick = () => {
    // Reset before starting: the trainer may report epoch 0 before start
    // returns (on the CPU nothing makes it wait).
    const before = state.epochs;
    state.epochs = []; state.done = false; state.error = null; state.running = true;
    $("start").disabled = true;
    drawPlot(+$("epochs").value);
    const err = dlcaMNIST.start(+$("epochs").value, +$("batch").value, +$("lr").value, +$("seed").value || 0, $("device").value);
    if (err) { state.epochs = before; state.running = false; $("start").disabled = false; $("status").textContent = err; drawPlot(); }
  };
  $("download").onclick = () => {
    const w = dlcaMNIST.weights();
    if (!w || typeof w === "string") { state.error = String(w); $("status").textContent = String(w); console.error("weights: " + w); return; }
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([w], { type: "application/octet-stream" }));
    a.download = S.dataset + "-" + S.model + ".safetensors";
    document.body.appendChild(a); a.click(); a.remove();
  };

  clearDrawing();
  drawPlot(S.epochs);
  // Unpack the data, then start the trainer (internal/htmlpage's loader),
  // which reads it from window.dlcaData and reports the WebGPU device.
  dlcaUnzip("dlca-data").then((data) => {
    window.dlcaData = data;
    $("status").textContent = "looking for WebGPU...";
    return dlcaRunGo("dlca-wasm");
  }).catch((e) => { state.error = String(e); console.error("loading the trainer: " + e); $("status").textContent = "cannot load the trainer: " + e; });
})();
