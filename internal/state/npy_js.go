//go:build js

package state

import "fmt"

// loadNPY is not in WebAssembly builds (see npy.go): there are no files to
// read in a browser page.
func loadNPY(path string, _ int) (*Grid, error) {
	return nil, fmt.Errorf("%s: .npy files are not read in the browser", path)
}
