package dlca

import (
	"fmt"
	"math/rand/v2"

	"github.com/dlca/dlca/gates"
	"github.com/dlca/dlca/jaxrand"
)

// The random streams a model can draw from (Config.RNG).
const (
	// StreamPCG is this project's stream: math/rand/v2's PCG, seeded
	// explicitly. Every model trained before the JAX stream existed used it
	// (its Config.RNG is empty).
	StreamPCG = "pcg"
	// StreamJAX is the paper's notebook's stream: JAX 0.4.33's threefry
	// keys (package jaxrand), split in the notebook's order.
	StreamJAX = "jax"
)

// Streams lists the stream names Config.RNG takes, the default first.
var Streams = []string{StreamPCG, StreamJAX}

// checkStream reports an unknown stream name.
func checkStream(s string) error {
	if s == "" || s == StreamPCG || s == StreamJAX {
		return nil
	}
	return fmt.Errorf("rng %q: use %q (this project's stream, the default) or %q (the paper's notebook's JAX stream)", s, StreamPCG, StreamJAX)
}

// drawWirings draws the wiring of every perception layer (first to last)
// and every update layer from cfg's stream.
func drawWirings(cfg Config) (perception, update []gates.Wiring, err error) {
	if cfg.RNG == StreamJAX {
		return jaxWirings(cfg)
	}
	return pcgWirings(cfg)
}

// pcgWirings draws the wirings from rand.NewPCG(cfg.Seed, 0) in layer order:
// perception, then update.
func pcgWirings(cfg Config) (perception, update []gates.Wiring, err error) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0))
	for i := 1; i < len(cfg.KernelLayers); i++ {
		// NOTE: a Moore wiring is drawn for every perception layer and
		// thrown away for layers 2 and up. The draw stays because every
		// seed's model depends on the order of the draws from rng: the
		// wirings of all later layers. Saved model files and checkpoints
		// would still load the same (they store their wiring), but removing
		// the draw would give every seed another model, so every training
		// run would change: the README's checkerboard (seed 23), every run
		// in docs/RESULTS.md (retrain and regenerate), and the tests that
		// pin a seed's results.
		w := gates.MooreWiring(rng)
		if i > 1 {
			if w, err = cfg.wiring(cfg.KernelLayers[i-1], cfg.KernelLayers[i], rng); err != nil {
				return nil, nil, fmt.Errorf("dlca: perception layer %d: %w", i-1, err)
			}
		}
		perception = append(perception, w)
	}
	in := cfg.UpdateInputs()
	for i, out := range cfg.UpdateLayers {
		w, err := cfg.wiring(in, out, rng)
		if err != nil {
			return nil, nil, fmt.Errorf("dlca: update layer %d: %w", i, err)
		}
		update = append(update, w)
		in = out
	}
	return perception, update, nil
}

// wiring draws the wiring of a layer of out gates over in inputs from rng,
// as c.Wiring says (the PCG stream; the JAX stream draws the notebook's
// unique wiring only).
func (c Config) wiring(in, out int, rng *rand.Rand) (gates.Wiring, error) {
	if c.Wiring == WiringRandom {
		return gates.RandomWiring(in, out, rng), nil
	}
	return gates.UniqueWiring(in, out, rng)
}

// jaxWirings draws the wirings as the paper's notebook does (init_state and
// init_diff_logic_ca in notebooks/diffLogic_CA.ipynb): from
// PRNGKey(seed) split into (key, init), init is split into the update
// network's key and a rest, the rest split again for the perception
// network's key; each network splits its key once per layer, first layer
// first, and draws that layer's permutation from the second half
// (jax.random.permutation: Moore wiring over 8 neighbours, unique wiring
// over the layer's gates). The update network is drawn before perception.
func jaxWirings(cfg Config) (perception, update []gates.Wiring, err error) {
	_, init := jaxrand.NewKey(cfg.Seed).Split2()
	rest, updateKey := init.Split2()
	_, perceptionKey := rest.Split2()
	update, err = uniqueLayers(cfg, layerKeys(updateKey))
	if err != nil {
		return nil, nil, err
	}
	next := layerKeys(perceptionKey)
	perception = append(perception, gates.MooreWiring(next()))
	for i := 2; i < len(cfg.KernelLayers); i++ {
		w, err := gates.UniqueWiring(cfg.KernelLayers[i-1], cfg.KernelLayers[i], next())
		if err != nil {
			return nil, nil, fmt.Errorf("dlca: perception layer %d: %w", i-1, err)
		}
		perception = append(perception, w)
	}
	return perception, update, nil
}

// layerKeys returns the notebook's per-layer keys from a network's key:
// each call splits the key and returns the second half.
func layerKeys(key jaxrand.Key) func() gates.Permuter {
	return func() gates.Permuter {
		var sub jaxrand.Key
		key, sub = key.Split2()
		return sub
	}
}

// uniqueLayers draws the update network's unique wirings (the notebook's),
// layer i from the i-th source next returns.
func uniqueLayers(cfg Config, next func() gates.Permuter) ([]gates.Wiring, error) {
	var ws []gates.Wiring
	in := cfg.UpdateInputs()
	for i, out := range cfg.UpdateLayers {
		w, err := gates.UniqueWiring(in, out, next())
		if err != nil {
			return nil, fmt.Errorf("dlca: update layer %d: %w", i, err)
		}
		ws = append(ws, w)
		in = out
	}
	return ws, nil
}
