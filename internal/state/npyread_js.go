//go:build js

package state

import (
	"errors"
	"io"
)

// ReadNPY is not in WebAssembly builds (see npyread.go): a browser page has
// no files to read.
func ReadNPY(io.Reader, Spec) (*State, error) {
	return nil, errors.New(".npy files are not read in the browser")
}
