package experiments

import (
	"math/rand/v2"

	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/jaxrand"
)

// What the checks draw. A check's random initial state, asynchronous fire
// masks and damage positions come from a fixed PCG seed (checkSeed), so
// that a check gives the same verdict every time it runs on a model. On the
// JAX stream they come instead from the keys the paper's notebook holds
// once training is over, as its check cells draw them: the initial grid
// from the last iteration's sample_key, the fire masks from the train
// state's key (split once a step, or into four for the robustness run),
// Game of Life's grid from the batch key (lifeGridInit). They are still
// fixed for a given run: the keys depend on the seed and the iterations
// only.

// jaxKeys are the JAX stream's keys after the run's Iterations iterations
// (JAXDraw's chains): the batch key, the last iteration's sample_key, and
// the train state's key (the fire key).
type jaxKeys struct{ batch, sample, state jaxrand.Key }

func (e *Experiment) jaxAfterTraining() jaxKeys {
	k := jaxKeys{batch: e.jaxBatchRoot()}
	k.state, _ = jaxrand.NewKey(e.Seed).Split2()
	for range e.Iterations {
		k.batch, k.sample = k.batch.Split2()
		k.state, _ = k.state.Split2()
	}
	return k
}

// jaxChecks reports whether e's checks draw from the JAX stream.
func (e *Experiment) jaxChecks() bool { return e.Model.RNG == dlca.StreamJAX }

// checkInit returns a check's initial state [size, size, c]: e.Init from
// the checks' seed, or on the JAX stream, for random initial bits,
// randint(sample_key, (size, size, c), 0, 2) with the last iteration's
// sample_key (the notebook's checkerboard cells).
func (e *Experiment) checkInit(size, c int) []float32 {
	if !e.jaxChecks() || e.Config == nil || e.Config.Init.Kind != "random" {
		return e.Init(rand.New(rand.NewPCG(checkSeed, 0)), size, size, c)
	}
	return floats(e.jaxAfterTraining().sample.RandInt(size*size*c, 0, 2))
}

// checkFireSeed seeds a check's asynchronous fire masks
// (dlca.HardOptions.Seed): the checks' seed, or on the JAX stream the train
// state's key after training, which the notebook's asynchronous check cells
// split once a step.
func (e *Experiment) checkFireSeed() uint64 {
	if !e.jaxChecks() {
		return checkSeed
	}
	return e.jaxAfterTraining().state.Uint64()
}

// robustnessDraws returns the robustness run's initial state [size, size,
// c] and its draws, step after step: the fire mask over cells cells and the
// damaged square's top-left corner (row, column), each in [0, size). From
// the checks' seed the state is e.Init's, the masks dlca's PCG masks and
// the corners rng.IntN(size) from the rng that drew the state; on the JAX
// stream they are the notebook's robustness cells': the state as
// checkInit's, and each step key, k1, k2, k3 = split(key, 4) from the train
// state's key after training, the mask from k1 (dlca.JAXFireMask), the row
// randint(k2, (), 0, size) and the column randint(k3, (), 0, size).
func (e *Experiment) robustnessDraws(m *dlca.Model, size, c int) (init []float32, next func(cells int) (fire []bool, y0, x0 int)) {
	if !e.jaxChecks() {
		rng := rand.New(rand.NewPCG(checkSeed, 0))
		init = e.Init(rng, size, size, c)
		masks := dlca.NewFireMasks(checkSeed, m.Config.FireRate)
		return init, func(cells int) ([]bool, int, int) {
			return masks.Next(cells), rng.IntN(size), rng.IntN(size)
		}
	}
	key := e.jaxAfterTraining().state
	return e.checkInit(size, c), func(cells int) ([]bool, int, int) {
		k := key.Split(4)
		key = k[0]
		return dlca.JAXFireMask(k[1], m.Config.FireRate, cells), int(k[2].RandInt(1, 0, int32(size))[0]), int(k[3].RandInt(1, 0, int32(size))[0])
	}
}

// floats converts bits to float32 values.
func floats(bits []int32) []float32 {
	f := make([]float32, len(bits))
	for i, v := range bits {
		f[i] = float32(v)
	}
	return f
}
