// Package htmlpage holds what the self-contained HTML pages share (web's
// training page, cmd/mnist's MNIST page): filling a page template, and
// embedding binary data (a WebAssembly program, a data set) gzipped in
// base64, with the script that unpacks and starts a Go program so
// embedded. The pages load nothing from anywhere, so everything they run
// is written into them.
package htmlpage
