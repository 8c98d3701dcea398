package experiments

import (
	"github.com/dlca/dlca/bptt"
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
// The notebook seeds both from its one seed, hyperparams['seed'], which
// here is Seed for these two keys and Model.Seed (wiring_seed) for the
// wiring: with both 23 the run is the notebook's.
//
// NOTE: Game of Life is not drawn like the notebook's: the notebook picks
// its batch among the 512 3x3 boards with randint(key, (batch,), 0, 512)
// from split(PRNGKey(seed))[0], where this experiment's boards are random
// bits (the same distribution, other numbers).
func (e *Experiment) JAXDraw() func(it int) *bptt.Batch {
	h, w, c := e.Model.Height, e.Model.Width, e.Model.Channels
	random := e.Config != nil && e.Config.Init.Kind == "random"
	var target []float32
	if e.TargetOf == nil {
		target = e.Target(h, w)
	}
	root := jaxrand.NewKey(e.Seed)
	last, batchKey, fireKey := 0, root, jaxrand.Key{}
	fireKey, _ = root.Split2()
	return func(it int) *bptt.Batch {
		if it <= last { // a resumed run, or a repeat: start the chains again
			last, batchKey = 0, root
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
		if random {
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
