package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrTooLarge is wrapped by ReadLimited's error for a file over its limit.
var ErrTooLarge = errors.New("file too large")

// ReadLimited reads the file at path, refusing one of more than limit
// bytes (a mistyped path such as /dev/zero, a link to a huge file) after
// reading at most limit+1 bytes of it, so no input can make a command take
// more memory than its limit. The error names the path and the limit.
func ReadLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
		return nil, fmt.Errorf("%s holds %d bytes, more than the %d this reads: %w", path, fi.Size(), limit, ErrTooLarge)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s holds more than the %d bytes this reads (is it the file you meant?): %w", path, limit, ErrTooLarge)
	}
	return b, nil
}
