package sweep

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// load writes a sweep file with text and loads it.
func load(t *testing.T, text string) (*File, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sweep.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(path)
}

// expand loads a sweep file and expands it, failing the test on an error.
func expand(t *testing.T, text string) *Plan {
	t.Helper()
	f, err := load(t, text)
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Expand(nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func names(p *Plan) []string {
	var out []string
	for _, r := range p.Runs {
		out = append(out, r.Name)
	}
	return out
}

func TestGridExpansion(t *testing.T) {
	p := expand(t, `
experiment = "lizard"
[set]
iterations = 200
[grid]
wiring_seed = { from = 1, to = 3 }
seed = [23, 5]
`)
	// Keys sorted, the last varying fastest; the values in file order.
	want := []string{
		"seed-23_wiring_seed-1", "seed-23_wiring_seed-2", "seed-23_wiring_seed-3",
		"seed-5_wiring_seed-1", "seed-5_wiring_seed-2", "seed-5_wiring_seed-3",
	}
	if got := names(p); !slices.Equal(got, want) {
		t.Fatalf("runs %v, want %v", got, want)
	}
	r := p.Runs[4]
	wantSet := []Setting{{"iterations", "200"}, {"seed", "5"}, {"wiring_seed", "2"}}
	if !slices.Equal(r.Set, wantSet) || !slices.Equal(r.Varied, wantSet[1:]) {
		t.Errorf("run %s: set %v, varied %v; want %v, %v", r.Name, r.Set, r.Varied, wantSet, wantSet[1:])
	}
	if p.Experiment != "lizard" || p.Config != "" || !filepath.IsAbs(p.Sweep) {
		t.Errorf("base %q %q, sweep %q", p.Experiment, p.Config, p.Sweep)
	}
	args := p.TrainArgs(r, "/out/x", "gpu")
	if got, want := strings.Join(args, " "), "train -experiment lizard -set iterations=200 -set seed=5 -set wiring_seed=2 -device gpu -out /out/x"; got != want {
		t.Errorf("train args %q, want %q", got, want)
	}
}

// TestListAndGrid: listed runs combine with every grid point; steps,
// dotted keys, floats, strings and lists are values dlca train -set takes.
func TestListAndGrid(t *testing.T) {
	p := expand(t, `
config = "base.toml"
[grid]
model.channels = [8, 16]
[[runs]]
lr = 0.05
rng = "jax"
[[runs]]
lr = 1e-3
rng = "go"
kernel_layers = [9, 8]
`)
	want := []string{
		"lr-0.05_model.channels-8_rng-jax", "lr-0.05_model.channels-16_rng-jax",
		"kernel_layers-[9, 8]_lr-0.001_model.channels-8_rng-go", "kernel_layers-[9, 8]_lr-0.001_model.channels-16_rng-go",
	}
	got := names(p)
	if len(got) != 4 || !slices.Equal(got[:2], want[:2]) {
		t.Fatalf("runs %v, want %v (the last two with a digest)", got, want)
	}
	for _, name := range got[2:] {
		if !strings.HasPrefix(name, "kernel_layers-_9__8_") || !plainName.MatchString(name) {
			t.Errorf("run %q: want a plain name made of its settings and a digest", name)
		}
	}
	if got[2] == got[3] {
		t.Errorf("two runs named %q", got[2])
	}
	if s := p.Runs[3].Set; !slices.Contains(s, Setting{"kernel_layers", "[9, 8]"}) || !slices.Contains(s, Setting{"model.channels", "16"}) {
		t.Errorf("run 4's settings: %v", s)
	}
	if !filepath.IsAbs(p.Config) || filepath.Base(p.Config) != "base.toml" {
		t.Errorf("config %q: want the base file, absolute, beside the sweep file", p.Config)
	}
	if args := strings.Join(p.TrainArgs(p.Runs[0], "o", "cpu"), " "); !strings.HasPrefix(args, "train -config "+p.Config+" ") {
		t.Errorf("train args %q", args)
	}
}

// TestStableNames: a run's name depends on its settings only, not on the
// order of keys in the file, on the other runs, nor on [set].
func TestStableNames(t *testing.T) {
	a := expand(t, "experiment = \"lizard\"\n[grid]\nseed = [1, 2]\nwiring_seed = [7]\n")
	b := expand(t, "experiment = \"lizard\"\n[set]\niterations = 9\n[grid]\nwiring_seed = [7, 8]\nseed = [2, 1, 3]\n")
	for _, name := range names(a) {
		if !slices.Contains(names(b), name) {
			t.Errorf("run %s of the first sweep is not in the second, larger one: %v", name, names(b))
		}
	}
	odd := runName([]Setting{{"note", "a b/c"}})
	if odd != runName([]Setting{{"note", "a b/c"}}) || odd == runName([]Setting{{"note", "a_b_c"}}) || !plainName.MatchString(odd) {
		t.Errorf("name of an odd value %q: want stable, plain and distinct from a plain value's", odd)
	}
	long := runName([]Setting{{"x", strings.Repeat("1", 300)}})
	if len(long) > maxName || long == runName([]Setting{{"x", strings.Repeat("1", 299)}}) {
		t.Errorf("long name %q (%d bytes): want at most %d and distinct", long, len(long), maxName)
	}
}

func TestBadSweepFiles(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"no base", "[grid]\nseed = [1]\n", "no base"},
		{"two bases", "experiment = \"lizard\"\nconfig = \"x.toml\"\n", "name one base"},
		{"unknown key", "experiment = \"lizard\"\nseeds = [1]\n", "unknown key"},
		{"not TOML", "experiment = \n", "sweep.toml:1"},
		{"base not a string", "experiment = 3\n", "sweep.toml:1:14: experiment: want a string in quotes, not an integer"},
		{"runs not tables", "experiment = \"lizard\"\nruns = [1]\n", "sweep.toml:2:9: runs: want a table (key = value lines, or { key = value }), not an integer"},
		{"grid not a table", "experiment = \"lizard\"\ngrid = [1]\n", "sweep.toml:2:8: grid: want a table"},
		{"grid value not a list", "experiment = \"lizard\"\n[grid]\nseed = 3\n", "belongs in [set]"},
		{"empty grid list", "experiment = \"lizard\"\n[grid]\nseed = []\n", "empty list"},
		{"set and grid", "experiment = \"lizard\"\n[set]\nseed = 1\n[grid]\nseed = [2]\n", "both set seed"},
		{"run and grid", "experiment = \"lizard\"\n[grid]\nseed = [2]\n[[runs]]\nseed = 1\n", "both set seed"},
		{"same run twice", "experiment = \"lizard\"\n[[runs]]\nseed = 1\n[[runs]]\nseed = 1\n", "same settings"},
		{"not a value", "experiment = \"lizard\"\n[set]\nwhen = 1979-05-27\n", "not a value"},
		// A digit too many: refused before a billion values are made.
		{"huge range", "experiment = \"lizard\"\n[grid]\nseed = { from = 1, to = 1000000000 }\n", "is 1000000000 values; a sweep has at most 100000 runs"},
		// Before: reported as nested keys (seed.from = ...).
		{"range from after to", "experiment = \"lizard\"\n[grid]\nseed = { from = 5, to = 1 }\n", "[grid] seed = { from = 5, to = 1, step = 1 }: from 5 is after to 1"},
		{"range step 0", "experiment = \"lizard\"\n[grid]\nseed = { from = 1, to = 5, step = 0 }\n", "[grid] seed = { from = 1, to = 5, step = 0 }: step 0: the step must be positive"},
		{"grid too large", "experiment = \"lizard\"\n[grid]\nseed = { from = 1, to = 400 }\nwiring_seed = { from = 1, to = 400 }\n",
			"[[runs]] (1) x [grid] seed (400) x wiring_seed (400) make 160000 runs; a sweep has at most 100000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := load(t, tc.text)
			if err == nil {
				_, err = f.Expand(nil)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v; want one mentioning %q", err, tc.want)
			}
		})
	}
}

// TestRangeAtTheLimit: a range ending at the largest int64 ends there
// (stepping past it used to wrap around to negative values for ever), and
// a step larger than half the span is counted without overflow.
func TestRangeAtTheLimit(t *testing.T) {
	for _, tc := range []struct {
		grid        string
		first, last string
		n           int
	}{
		{"seed = { from = 9223372036854775000, to = 9223372036854775807, step = 5 }", "9223372036854775000", "9223372036854775805", 162},
		{"seed = { from = -9223372036854775808, to = 9223372036854775807, step = 9000000000000000000 }", "-9223372036854775808", "8776627963145224192", 3},
	} {
		f, err := load(t, "experiment = \"lizard\"\n[grid]\n"+tc.grid+"\n")
		if err != nil {
			t.Fatal(err)
		}
		p, err := f.Expand(nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Runs) != tc.n || p.Runs[0].Set[0].Value != tc.first || p.Runs[tc.n-1].Set[0].Value != tc.last {
			t.Errorf("%s: %d runs, %v ... %v; want %d, %s ... %s", tc.grid, len(p.Runs), p.Runs[0].Set, p.Runs[len(p.Runs)-1].Set, tc.n, tc.first, tc.last)
		}
	}
}

// TestResolved: the resolver sees every run's settings, its result goes
// into the plan, and its error names the run.
func TestResolved(t *testing.T) {
	f, err := load(t, "experiment = \"lizard\"\n[grid]\nseed = [1, 2]\n")
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Expand(func(experiment, config string, set []Setting) (any, error) {
		return map[string]string{"experiment": experiment, "seed": set[0].Value}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Runs[1].Resolved.(map[string]string); got["seed"] != "2" || got["experiment"] != "lizard" {
		t.Errorf("resolved %v", got)
	}
	_, err = f.Expand(func(string, string, []Setting) (any, error) { return nil, os.ErrInvalid })
	if err == nil || !strings.Contains(err.Error(), "run seed-1") {
		t.Errorf("error %v: want one naming the run", err)
	}
}

// TestWritePlan: a plan may be written again and extended, never
// contradicted.
func TestWritePlan(t *testing.T) {
	dir := t.TempDir()
	small := expand(t, "experiment = \"lizard\"\n[grid]\nseed = [1, 2]\n")
	if err := WritePlan(dir, small); err != nil {
		t.Fatal(err)
	}
	back, err := ReadPlan(dir)
	if err != nil || !slices.Equal(names(back), names(small)) || !slices.Equal(back.Runs[1].Set, small.Runs[1].Set) {
		t.Fatalf("read back %v, %v; wrote %v", back, err, small)
	}
	if err := WritePlan(dir, small); err != nil {
		t.Errorf("the same plan again: %v", err)
	}
	larger := expand(t, "experiment = \"lizard\"\n[grid]\nseed = [1, 2, 3]\n")
	if err := WritePlan(dir, larger); err != nil {
		t.Errorf("a plan with a run more: %v", err)
	}
	other := expand(t, "experiment = \"lizard\"\n[set]\niterations = 5\n[grid]\nseed = [1]\n")
	if err := WritePlan(dir, other); err == nil || !strings.Contains(err.Error(), "other settings") {
		t.Errorf("a plan that changes run seed-1's settings: %v", err)
	}
	base := expand(t, "experiment = \"gameoflife\"\n[grid]\nseed = [1]\n")
	if err := WritePlan(dir, base); err == nil || !strings.Contains(err.Error(), "another base") {
		t.Errorf("a plan of another base: %v", err)
	}
	if back, _ := ReadPlan(dir); len(back.Runs) != 3 {
		t.Errorf("after refused plans, plan.json has %d runs; want the 3 of the larger plan", len(back.Runs))
	}
}
