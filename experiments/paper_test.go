package experiments

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/jaxrand"
)

// TestPaperTargets: the masks hold the counts targets/README.md gives, the
// lizard's seed cell (10, 10) is inside it, and on a 40x40 grid it sits at
// offset (10, 10).
func TestPaperTargets(t *testing.T) {
	l := Lizard(LizardSize, LizardSize)
	if n := count(l); n != 120 {
		t.Errorf("the lizard has %v live cells, want 120", n)
	}
	if l[10*LizardSize+10] != 1 {
		t.Error("the seed cell (10, 10) is outside the lizard")
	}
	// Row 8 of lizard.txt is "....#.##########....".
	if l[8*LizardSize+4] != 1 || l[8*LizardSize+5] != 0 || l[8*LizardSize+6] != 1 {
		t.Errorf("row 8 of the lizard reads %v", l[8*LizardSize:9*LizardSize])
	}
	big := Lizard(40, 40)
	if count(big) != 120 || big[(8+10)*40+4+10] != 1 {
		t.Error("the lizard is not centred on 40x40 at offset 10")
	}
	g := ColourG(GSize, GSize)
	if n := count(g); n != 109 {
		t.Errorf("the G has %v target bits, want 109", n)
	}
	// Row 5 of colour-g.txt is ".YYR............": yellow at column 1 sets
	// channels 0 and 1, red at column 3 channel 0.
	if !slices.Equal(g[(5*GSize+1)*3:][:3], []float32{1, 1, 0}) || !slices.Equal(g[(5*GSize+3)*3:][:3], []float32{1, 0, 0}) {
		t.Errorf("row 5 of the G reads %v", g[5*GSize*3:6*GSize*3])
	}
	if _, err := parseMask("#.\n#", 2, 1, lizardLegend); err == nil {
		t.Error("a short line was accepted")
	}
}

func count(v []float32) float32 {
	n := float32(0)
	for _, x := range v {
		n += x
	}
	return n
}

// TestJAXDraw writes the notebook's checkerboard loop out by hand: key =
// PRNGKey(23); each iteration key, sample_key = split(key) and train_x =
// randint(sample_key, (2, 16, 16, 8), 0, 2); the train state's key is the
// first half of split(PRNGKey(23)) and each iteration splits off k1.
func TestJAXDraw(t *testing.T) {
	c, _ := Builtin("checkerboard")
	if err := c.Set("rng", "jax"); err != nil {
		t.Fatal(err)
	}
	e, err := c.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	run := e.Run()
	if run.Draw == nil {
		t.Fatal("rng = jax gives no JAX draw")
	}
	key := jaxrand.NewKey(23)
	state, _ := key.Split2()
	for it := 1; it <= 3; it++ {
		var sample, k1 jaxrand.Key
		key, sample = key.Split2()
		state, k1 = state.Split2()
		b := run.Draw(it)
		bits := sample.RandInt(2*16*16*8, 0, 2)
		for i, v := range bits {
			if b.Init[i] != float32(v) {
				t.Fatalf("iteration %d: init[%d] = %v, want %d", it, i, b.Init[i], v)
			}
		}
		if b.FireSeed != k1.Uint64() {
			t.Errorf("iteration %d: fire seed %x, want %x", it, b.FireSeed, k1.Uint64())
		}
	}
	// A resumed run asks for a later iteration first: the same batch.
	again := e.JAXDraw()(3)
	if again.FireSeed != run.Draw(3).FireSeed || !slices.Equal(again.Init, run.Draw(3).Init) {
		t.Error("iteration 3 drawn afresh differs")
	}
}

// TestJAXDrawLife writes the notebook's Game of Life cells out by hand: key =
// PRNGKey(23); key, subkey = split(key) (subkey draws a batch only to print
// it); each iteration key, sample_key = split(key) and the batch is the
// boards numbered randint(sample_key, (20,), 0, 512), board n's cell k (k =
// 3 row + column) being (n & (1 << (8 - k))) > 0 (generate_binary_tensor);
// the 128x128 grid of the last cell is randint(key, (128, 128, 1), 0, 2)
// with key as the training loop left it. A PCG run's grid is the checks'
// fixed PCG seed's, as before.
func TestJAXDrawLife(t *testing.T) {
	c, _ := Builtin("gameoflife")
	if err := c.Set("rng", "jax"); err != nil {
		t.Fatal(err)
	}
	e, err := c.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	draw := e.Run().Draw
	key, _ := jaxrand.NewKey(23).Split2()
	for it := 1; it <= 3; it++ {
		var sample jaxrand.Key
		key, sample = key.Split2()
		b := draw(it)
		for i, n := range sample.RandInt(20, 0, 512) {
			board := make([]uint8, 9)
			for k := range 9 {
				if n&(1<<(8-k)) != 0 {
					board[k] = 1
				}
				if b.Init[i*9+k] != float32(board[k]) {
					t.Fatalf("iteration %d, board %d (number %d): cell %d is %v", it, i, n, k, b.Init[i*9+k])
				}
			}
			for k, v := range LifeStep(board, 3, 3) {
				if b.Target[i*9+k] != float32(v) {
					t.Fatalf("iteration %d, board %d: target cell %d is %v, want %d", it, i, k, b.Target[i*9+k], v)
				}
			}
		}
	}
	for it := 4; it <= e.Iterations; it++ {
		key, _ = key.Split2()
	}
	grid := e.lifeGridInit(128)
	for i, v := range key.RandInt(128*128, 0, 2) {
		if got := grid[i]; got != float32(v) {
			t.Fatalf("the grid check's cell %d is %v, want %d", i, got, v)
		}
	}
	pcg, _ := Get("gameoflife")
	if !slices.Equal(pcg.lifeGridInit(16), RandomBits(rand.New(rand.NewPCG(checkSeed, 0)), 16, 16, 1)) {
		t.Error("the PCG run's grid check starts from other cells than the checks' seed gives")
	}
}

// TestJAXCheckDraws writes the notebook's asynchronous checkerboard check
// cells out by hand: after the 800 training iterations (key, sample_key =
// split(key) from PRNGKey(23); the train state's key from
// split(PRNGKey(23))[0], split once an iteration) the grid is
// randint(sample_key, (56, 56, 8), 0, 2), the self-healing cell splits the
// train state's key once a step for its masks, and the robustness cell
// splits it into key, k1, k2, k3 each step: the mask uniform(k1, (64, 64,
// 1)) <= 0.6, the corner (randint(k2, (), 0, 64), randint(k3, (), 0, 64)).
func TestJAXCheckDraws(t *testing.T) {
	c, _ := Builtin("checkerboard-async")
	if err := c.Set("rng", "jax"); err != nil {
		t.Fatal(err)
	}
	e, err := c.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	key := jaxrand.NewKey(23)
	state, _ := key.Split2()
	var sample jaxrand.Key
	for range 800 {
		key, sample = key.Split2()
		state, _ = state.Split2()
	}
	if !slices.Equal(e.checkInit(56, 8), floats(sample.RandInt(56*56*8, 0, 2))) {
		t.Error("the checks' grid is not randint(sample_key, (56, 56, 8), 0, 2)")
	}
	if e.checkFireSeed() != state.Uint64() {
		t.Errorf("the checks' fire key %x, want the train state's %x", e.checkFireSeed(), state.Uint64())
	}
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	init, draw := e.robustnessDraws(m, 64, 8)
	if !slices.Equal(init, floats(sample.RandInt(64*64*8, 0, 2))) {
		t.Error("the robustness grid is not randint(sample_key, (64, 64, 8), 0, 2)")
	}
	for step := 1; step <= 3; step++ {
		k := state.Split(4)
		state = k[0]
		fire, y0, x0 := draw(64 * 64)
		for i, u := range k[1].Uniform(64 * 64) {
			if fire[i] != (u <= float32(0.6)) {
				t.Fatalf("step %d: cell %d fires %v with uniform %v", step, i, fire[i], u)
			}
		}
		if want := [2]int32{k[2].RandInt(1, 0, 64)[0], k[3].RandInt(1, 0, 64)[0]}; y0 != int(want[0]) || x0 != int(want[1]) {
			t.Fatalf("step %d: square at (%d, %d), want %v", step, y0, x0, want)
		}
	}
	pcg, _ := Get("checkerboard-async")
	if !slices.Equal(pcg.checkInit(8, 8), RandomBits(rand.New(rand.NewPCG(checkSeed, 0)), 8, 8, 8)) || pcg.checkFireSeed() != checkSeed {
		t.Error("the PCG run's checks draw from other than the checks' seed")
	}
}
