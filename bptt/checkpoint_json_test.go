package bptt_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/internal/jsonfile/jsonfiletest"
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

// TestCheckpointExactJSON: a checkpoint's field names match exactly, each
// once, and the required ones are there (docs/RELIABILITY.md lists them),
// in the checkpoint and in the model file it holds; encoding/json would
// have read every one of these files.
func TestCheckpointExactJSON(t *testing.T) {
	good := writeCheckpoint(t, tinySetup(t))
	edit := func(from, to string) []byte {
		t.Helper()
		if !bytes.Contains(good, []byte(from)) {
			t.Fatalf("the checkpoint has no %q", from)
		}
		return bytes.Replace(good, []byte(from), []byte(to), 1)
	}
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"a name in another case", edit(`"seed":4`, `"Seed":4`), `unknown field "Seed"`},
		{"a model name in another case", edit(`"boundary"`, `"Boundary"`), `unknown field "Boundary" in /config`},
		{"a duplicate field", edit(`"seed":4`, `"seed":4,"seed":5`), `field appears twice: "seed"`},
		{"a duplicate model field", edit(`"boundary":"zero"`, `"boundary":"zero","boundary":"periodic"`), `field appears twice: "boundary" in /model/config`},
		{"a duplicate metrics field", edit(`"hard_loss":`, `"hard_loss":0,"hard_loss":`), `"hard_loss" in /metrics/0`},
	}
	for _, path := range []string{"format", "version", "label", "seed", "iterations", "iteration", "dtype", "model",
		"optimizer", "rng", "metrics", "optimizer/kind", "optimizer/steps", "optimizer/lr", "optimizer/buffers",
		"metrics/1/iteration", "metrics/0/soft_loss", "metrics/0/hard_loss", "metrics/0/active_gates", "metrics/0/time_ns",
		"model/config/boundary", "model/update/1/logits"} {
		name := path[strings.LastIndex(path, "/")+1:]
		cases = append(cases, struct {
			name string
			data []byte
			want string
		}{"without " + path, jsonfiletest.Without(t, good, path), `missing field "` + name + `"`})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := bptt.ReadCheckpoint(bytes.NewReader(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one mentioning %q", err, tc.want)
			}
		})
	}
	// settings (version 2) are optional.
	v2, err := os.ReadFile("testdata/checkpoint-tiny-v2.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bptt.ReadCheckpoint(bytes.NewReader(jsonfiletest.Without(t, v2, "settings"))); err != nil {
		t.Errorf("without settings: %v", err)
	}
}

// TestCheckpointFilesOfEveryVersionRead: the checkpoints this project wrote
// in formats 1 and 2 (testdata) read under the strict rules.
func TestCheckpointFilesOfEveryVersionRead(t *testing.T) {
	for _, name := range []string{"checkpoint-tiny.json", "checkpoint-tiny-v2.json", "checkpoint-small-float32.json"} {
		if _, err := bptt.LoadCheckpoint(filepath.Join("testdata", name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
