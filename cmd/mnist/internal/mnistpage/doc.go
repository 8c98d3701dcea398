// Package mnistpage is the MNIST page that `mnist -export-html FILE`
// writes: one self-contained HTML file carrying a subset of a data set
// and the trainer (cmd/mnist/internal/pagewasm, compiled to WebAssembly),
// which trains a model in the browser tab on WebGPU when the browser
// offers it, else on the CPU, draws the loss and the held-out accuracy as
// it goes, classifies a digit drawn on a canvas, and downloads the weights
// as safetensors. The page's writer (Write) and the trainer's training
// (Train) share this package, so the data's layout has one definition.
// See docs/web.md.
package mnistpage
