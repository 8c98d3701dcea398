package bptt_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/dlca/dlca/bptt"
)

// TestCheckpointStrictJSON: a checkpoint with a byte-order mark or with
// anything after its JSON value is refused, saying which.
func TestCheckpointStrictJSON(t *testing.T) {
	good := writeCheckpoint(t, tinySetup(t))
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"byte-order mark", append([]byte("\xEF\xBB\xBF"), good...), "starts with a UTF-8 byte-order mark; save the file without it"},
		{"trailing data", append(bytes.Clone(good), "garbage"...), "data after its JSON value"},
		{"two checkpoints", append(bytes.Clone(good), good...), "data after its JSON value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := bptt.ReadCheckpoint(bytes.NewReader(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	if _, err := bptt.ReadCheckpoint(bytes.NewReader(append(bytes.Clone(good), "\n\n"...))); err != nil {
		t.Errorf("trailing new lines: %v", err)
	}
}
