package experiments

import (
	"slices"
	"testing"

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
