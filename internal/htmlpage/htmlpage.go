package htmlpage

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/base64"
	"io"
	"strings"
)

// Fill writes the page template tmpl with each {{.Key}} replaced by
// fields[Key], in one pass (text put in is not scanned again). The
// templates only substitute, so text/template is not needed, and leaving
// it out keeps the training page's WebAssembly trainer, which writes
// circuit pages, about 7 MB smaller (text/template's reflection keeps every
// exported method linked).
func Fill(w io.Writer, tmpl string, fields map[string]string) error {
	var pairs []string
	for k, v := range fields {
		pairs = append(pairs, "{{."+k+"}}", v)
	}
	_, err := strings.NewReplacer(pairs...).WriteString(w, tmpl)
	return err
}

// GzipBase64 returns b gzipped (best compression) in base64: how a page
// carries binary data in a script element, which the browser unpacks with
// DecompressionStream (GoLoaderJS).
func GzipBase64(b []byte) string {
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression) // the level is valid
	zw.Write(b)                                            // a bytes.Buffer does not fail
	zw.Close()
	return base64.StdEncoding.EncodeToString(z.Bytes())
}

// GoLoaderJS defines the page functions dlcaUnzip(id), which returns the
// bytes a script element with that id carries (GzipBase64), and
// dlcaRunGo(id), which starts the Go program such an element carries with
// the Go toolchain's wasm_exec.js (written into the page before it).
//
//go:embed goloader.js
var GoLoaderJS string
