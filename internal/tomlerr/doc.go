// Package tomlerr words go-toml's decoding errors for the person who wrote
// the file: what a key wants in TOML's terms (a number, an array of whole
// numbers), not the Go type it decodes into. Experiment files and sweep
// files share it.
package tomlerr
