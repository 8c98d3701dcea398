package mnist

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/autograd/optim"
)

// TestHeapFlatOverMLPSteps: the live heap after 1,000 MLP training steps
// on the CPU is what it was after the first 50, within 512 KiB. Each step
// builds and frees a graph; a tensor kept per step by mistake (a graph
// node, a gradient, a scratch buffer leaked out of its pool) would add at
// least the smallest activation, the 32×10 logits (1.25 KiB with its
// header), 950 times: 1.2 MiB, over twice the tolerance, while what may
// legitimately differ between the two readings is the runtime's own
// bookkeeping and the pools' buffers, which FreeUnusedMemory and the two
// collections before each reading empty. Both readings follow full
// collections.
func TestHeapFlatOverMLPSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 training steps")
	}
	const batch, warm, steps = 32, 50, 1000
	rng := rand.New(rand.NewPCG(7, 7))
	data := synthetic(batch*10, rng)
	m := NewMLP(autograd.Float32, rng)
	opt := optim.NewAdam(m.Parameters(), optim.DefaultAdam())
	idx := make([]int, batch)
	step := func(i int) {
		for j := range idx {
			idx[j] = (i*batch + j) % data.Len()
		}
		if _, err := trainStep(m, opt, On(autograd.CPU), data, idx); err != nil {
			t.Fatal(err)
		}
	}
	live := func() uint64 {
		autograd.FreeUnusedMemory() // the storage pool's free arrays are not live data
		runtime.GC()
		runtime.GC() // the second empties the sync.Pools' victim caches
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for i := range warm {
		step(i)
	}
	before := live()
	for i := warm; i < steps; i++ {
		step(i)
	}
	after := live()
	runtime.KeepAlive(opt) // the model and its Adam state count in both readings
	runtime.KeepAlive(data)
	const tolerance = 512 << 10
	if after > before+tolerance {
		t.Fatalf("live heap grew from %d to %d bytes over %d steps (tolerance %d)", before, after, steps-warm, tolerance)
	}
	t.Logf("live heap %d bytes after %d steps, %d after %d", before, warm, after, steps)
}
