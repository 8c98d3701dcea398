package experiments

import (
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/jaxrand"
)

// JAXDraw returns the batches of the JAX stream (bptt.Run.Draw), drawn as
// the paper's notebook draws them in its checkerboard, lizard and G cells:
//
//   - the batch key starts as PRNGKey(Seed) and each iteration splits it
//     into (key, sample_key); random initial states (init kind random) are
//     jax.random.randint(sample_key, (Batch, H, W, C), 0, 2), and the other
//     initial states (centre, zeros, file) draw nothing;
//   - the fire key starts as the first half of split(PRNGKey(Seed)) (the
//     key init_state keeps beside the model) and each iteration splits it
//     into (key, k1); k1 is the batch's FireSeed (jaxrand.Key.Uint64), from
//     which every step of the rollout splits its fire mask's key
//     (dlca.NewJAXFireMasks), for the soft and the hard loss alike.
//
// Game of Life on 3x3 boards from random cells is drawn as the notebook's
// Game of Life cell draws it: the batch key starts as the first half of
// split(PRNGKey(Seed)), and each iteration's boards are the boards numbered
// jax.random.randint(sample_key, (Batch,), 0, 512), board i's nine cells
// being the bits of i, most significant first, in row-major order, in
// channel 0 (the other channels 0).
//
// The notebook seeds both from its one seed, hyperparams['seed'], which
// here is Seed for these two keys and Model.Seed (wiring_seed) for the
// wiring: with both 23 the run is the notebook's.
func (e *Experiment) JAXDraw() func(it int) *bptt.Batch {
	h, w, c := e.Model.Height, e.Model.Width, e.Model.Channels
	random := e.Config != nil && e.Config.Init.Kind == "random"
	life := random && e.notebookLife()
	var target []float32
	if e.TargetOf == nil {
		target = e.Target(h, w)
	}
	root := jaxrand.NewKey(e.Seed)
	batchRoot := e.jaxBatchRoot()
	last, batchKey, fireKey := 0, batchRoot, jaxrand.Key{}
	fireKey, _ = root.Split2()
	return func(it int) *bptt.Batch {
		if it <= last { // a resumed run, or a repeat: start the chains again
			last, batchKey = 0, batchRoot
			fireKey, _ = root.Split2()
		}
		var sample, k1 jaxrand.Key
		for ; last < it; last++ {
			batchKey, sample = batchKey.Split2()
			fireKey, k1 = fireKey.Split2()
		}
		b := &bptt.Batch{Height: h, Width: w, FireSeed: k1.Uint64()}
		n := h * w * c
		var bits []int32
		switch {
		case life:
			bits = lifeBoards(sample.RandInt(e.Batch, 0, lifeBoardCount), c)
		case random:
			bits = sample.RandInt(e.Batch*n, 0, 2)
		}
		for i := range e.Batch {
			var init []float32
			if random {
				init = make([]float32, n)
				for j, v := range bits[i*n : (i+1)*n] {
					init[j] = float32(v)
				}
			} else {
				init = e.Init(nil, h, w, c) // centre, zeros and file draw nothing
			}
			b.Init = append(b.Init, init...)
			if e.TargetOf != nil {
				target = e.TargetOf(init, h, w, c)
			}
			b.Target = append(b.Target, target...)
		}
		return b
	}
}

// notebookLife reports whether e is the notebook's Game of Life set-up:
// the Life target on 3x3 boards, which the notebook draws as board numbers.
func (e *Experiment) notebookLife() bool {
	return e.Config != nil && e.Config.Target.Kind == "gameoflife" && e.Model.Height == 3 && e.Model.Width == 3
}

// jaxBatchRoot is the batch key before the first iteration: PRNGKey(Seed),
// or for the notebook's Game of Life the first half of its split.
func (e *Experiment) jaxBatchRoot() jaxrand.Key {
	root := jaxrand.NewKey(e.Seed)
	if e.notebookLife() {
		root, _ = root.Split2()
	}
	return root
}

// lifeBoardCount is the number of 3x3 boards, the notebook's
// generate_binary_tensor.
const lifeBoardCount = 1 << dlca.NeighbourhoodSize

// lifeBoards returns the 3x3 boards numbered idx as states of c channels
// (board after board, cell after cell, channel after channel): cell j of
// board i is bit 8-j of i, in channel 0; the other channels are 0.
func lifeBoards(idx []int32, c int) []int32 {
	n := dlca.NeighbourhoodSize * c
	bits := make([]int32, len(idx)*n)
	for i, b := range idx {
		for j := range dlca.NeighbourhoodSize {
			bits[i*n+j*c] = b >> (dlca.NeighbourhoodSize - 1 - j) & 1
		}
	}
	return bits
}
