package bptt_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dlca/dlca/bptt"
)

// FuzzReadCheckpoint: no input makes the checkpoint reader panic; an error
// names the package; a checkpoint that reads writes back to the same bytes,
// and resuming from it either works or returns an error. Fuzz it with
//
//	go test ./bptt -run '^$' -fuzz '^FuzzReadCheckpoint$' -fuzztime 60s
func FuzzReadCheckpoint(f *testing.F) {
	seeds, err := filepath.Glob("testdata/checkpoint-*.json")
	if err != nil || len(seeds) == 0 {
		f.Fatalf("no checkpoint seeds in testdata (%v)", err)
	}
	for _, p := range seeds {
		seed, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(seed)
		f.Add(seed[:len(seed)/2])
	}
	f.Add([]byte(`{"format":"dlca-checkpoint","version":1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ck, err := bptt.ReadCheckpoint(bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "bptt: ") {
				t.Fatalf("error without the package prefix: %v", err)
			}
			return
		}
		var first, second bytes.Buffer
		if err := ck.Write(&first); err != nil {
			t.Fatal(err)
		}
		again, err := bptt.ReadCheckpoint(bytes.NewReader(first.Bytes()))
		if err != nil {
			t.Fatalf("a checkpoint that read does not read back: %v", err)
		}
		if err := again.Write(&second); err != nil || !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Fatalf("writing, reading and writing again changed the checkpoint (%v)", err)
		}
		setup := bptt.Setup{Model: ck.Model, Batch: 1, Steps: 1, LossChannels: []int{0}, Optimizer: bptt.PaperOptimizer(0.05)}
		eng, err := bptt.NewCPU(setup)
		if err != nil {
			return
		}
		run := bptt.Run{Iterations: ck.Iterations, Seed: ck.Seed}
		bptt.NewCheckpointer("never-written.ckpt", 0, ck.Label, eng, &run, ck)
	})
}
