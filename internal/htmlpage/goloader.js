// Unpacking what a page carries gzipped in base64 (internal/htmlpage), and
// starting a Go program so carried with the Go toolchain's wasm_exec.js.
"use strict";

// dlcaUnzip returns the bytes the script element with this id carries.
async function dlcaUnzip(id) {
  const b64 = document.getElementById(id).textContent.trim();
  const zipped = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
  return new Uint8Array(await new Response(new Blob([zipped]).stream().pipeThrough(new DecompressionStream("gzip"))).arrayBuffer());
}

// dlcaRunGo starts the Go program (GOOS=js GOARCH=wasm) the script element
// with this id carries, and returns once its main has begun; the program
// runs until it exits.
async function dlcaRunGo(id) {
  const wasm = await dlcaUnzip(id);
  const go = new Go();
  const { instance } = await WebAssembly.instantiate(wasm, go.importObject);
  globalThis.wasm = { instance }; // cogentcore/webgpu's uploads read Go's memory through it
  go.run(instance);
}
