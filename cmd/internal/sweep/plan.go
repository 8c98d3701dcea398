package sweep

import (
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/dlca/dlca/internal/jsonfile"
	"github.com/dlca/dlca/internal/safefile"
)

// PlanName is the plan's file in a sweep's folder.
const PlanName = "plan.json"

// Plan is a sweep expanded into runs (plan.json).
type Plan struct {
	Sweep      string `json:"sweep"`                // the sweep file, absolute
	Experiment string `json:"experiment,omitempty"` // the base: a built-in experiment
	Config     string `json:"config,omitempty"`     // or an experiment file, absolute
	Runs       []Run  `json:"runs"`
}

// Run is one training of a sweep.
type Run struct {
	Name string `json:"name"` // its folder's name under runs/, from its varied settings
	// Varied are the settings this run is named by (those of [grid] and
	// [[runs]]); Set are all its settings, [set]'s included, in the order
	// they are given to dlca train.
	Varied []Setting `json:"varied"`
	Set    []Setting `json:"set"`
	// Resolved is the run's whole configuration, as dlca train will
	// train it (absent where no Resolver was given).
	Resolved any `json:"resolved,omitempty"`
}

// Resolver returns the whole configuration a run trains: the base with the
// run's settings applied; an error for a setting the base does not have.
type Resolver func(experiment, config string, set []Setting) (any, error)

// Expand turns the sweep file into its runs, in a stable order: the listed
// runs in file order, each combined with the grid's points (keys sorted,
// the last key varying fastest). resolve, if not nil, checks each run's
// settings and resolves its configuration.
func (f *File) Expand(resolve Resolver) (*Plan, error) {
	shared, err := settings("[set]", f.Set)
	if err != nil {
		return nil, err
	}
	grid, err := axes(f.Grid)
	if err != nil {
		return nil, err
	}
	listed := [][]Setting{nil}
	if len(f.Runs) > 0 {
		listed = nil
		for i, r := range f.Runs {
			s, err := settings(fmt.Sprintf("[[runs]] number %d", i+1), r)
			if err != nil {
				return nil, err
			}
			listed = append(listed, s)
		}
	}
	// NOTE: counted in float64 before the points are made, so that a grid
	// of millions of combinations is refused rather than built.
	count := float64(len(listed))
	for _, a := range grid {
		count *= float64(len(a.values))
	}
	if count > MaxRuns {
		return nil, fmt.Errorf("%s: %s make %.0f runs; a sweep has at most %d: split it, or is a list longer than meant?", f.path, gridSizes(len(listed), grid), count, MaxRuns)
	}
	p := &Plan{Sweep: absolute(f.path), Experiment: f.Experiment, Config: absolute(f.Config)}
	names := map[string]int{}
	for _, l := range listed {
		for _, point := range points(grid) {
			varied, err := merge("[[runs]] and [grid]", l, point)
			if err != nil {
				return nil, err
			}
			set, err := merge("[set] and [grid] or [[runs]]", shared, varied)
			if err != nil {
				return nil, err
			}
			r := Run{Name: runName(varied), Varied: varied, Set: set}
			if j, dup := names[r.Name]; dup {
				return nil, fmt.Errorf("%s: two runs with the same settings (%s): runs %d and %d; list each once", f.path, r.Name, j+1, len(p.Runs)+1)
			}
			if resolve != nil {
				if r.Resolved, err = resolve(p.Experiment, p.Config, set); err != nil {
					return nil, fmt.Errorf("%s: run %s: %w", f.path, r.Name, err)
				}
			}
			names[r.Name] = len(p.Runs)
			p.Runs = append(p.Runs, r)
		}
	}
	return p, nil
}

// MaxRuns is the most runs a sweep may plan: more is a mistake (a range
// with a digit too many, a grid of too many axes) more often than a plan,
// and would fill the machine with the plan alone.
const MaxRuns = 100_000

// gridSizes says what multiplies into a sweep's run count: "[[runs]] (3) x
// [grid] seed (10) x lr (4)".
func gridSizes(listed int, grid []axis) string {
	parts := []string{fmt.Sprintf("[[runs]] (%d)", listed)}
	for i, a := range grid {
		prefix := ""
		if i == 0 {
			prefix = "[grid] "
		}
		parts = append(parts, fmt.Sprintf("%s%s (%d)", prefix, a.key, len(a.values)))
	}
	return strings.Join(parts, " x ")
}

// points is every combination of the axes' values, the last axis varying
// fastest; one empty point without axes.
func points(axes []axis) [][]Setting {
	out := [][]Setting{nil}
	for _, a := range axes {
		var next [][]Setting
		for _, p := range out {
			for _, v := range a.values {
				next = append(next, append(slices.Clone(p), Setting{a.key, v}))
			}
		}
		out = next
	}
	return out
}

// merge joins two lists of settings, sorted by key; a key in both is an
// error (what says where they come from).
func merge(what string, a, b []Setting) ([]Setting, error) {
	out := slices.Concat(a, b)
	slices.SortStableFunc(out, func(x, y Setting) int { return strings.Compare(x.Key, y.Key) })
	for i := 1; i < len(out); i++ {
		if out[i].Key == out[i-1].Key {
			return nil, fmt.Errorf("%s both set %s: give each setting in one place", what, out[i].Key)
		}
	}
	return out, nil
}

// plainName is what a run's name may hold as is (safefile.CheckName).
var plainName = regexp.MustCompile(`^[A-Za-z0-9._-]*$`)

// maxName is safefile.CheckName's longest name.
const maxName = 100

// runName names a run by its varied settings, sorted by key, each as
// key-value, joined by underscores: "seed-1_wiring_seed-3". A setting with
// other characters (a space, a slash, a plus) or a name too long is
// shortened and given a digest of the settings, so that names stay
// distinct, stable and safe in a path and in a shell.
func runName(varied []Setting) string {
	if len(varied) == 0 {
		return "base"
	}
	var parts []string
	plain := true
	for _, s := range varied {
		v := s.Value
		if !plainName.MatchString(s.Key + v) {
			plain = false
			v = strings.Map(func(r rune) rune {
				if plainName.MatchString(string(r)) {
					return r
				}
				return '_'
			}, v)
		}
		parts = append(parts, s.Key+"-"+v)
	}
	name := strings.Join(parts, "_")
	if plain && len(name) <= maxName {
		return name
	}
	h := sha256.New()
	for _, s := range varied {
		fmt.Fprintf(h, "%s\x00%s\x00", s.Key, s.Value)
	}
	return fmt.Sprintf("%.*s-%x", min(len(name), maxName-9), name, h.Sum(nil)[:4])
}

// WritePlan writes p as dir/plan.json, creating dir. A plan already there
// may be extended (runs added) but not contradicted: a run it has under
// the same name with other settings, or another base, is refused, since
// that run's folder holds a training of those settings.
func WritePlan(dir string, p *Plan) error {
	old, err := ReadPlan(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return err
	default:
		if err := compatible(dir, old, p); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create the sweep's folder: %w", err)
	}
	return safefile.Write(filepath.Join(dir, PlanName), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", " ")
		return enc.Encode(p)
	})
}

// compatible refuses a new plan that contradicts the old one of dir.
func compatible(dir string, old, p *Plan) error {
	if old.Experiment != p.Experiment || old.Config != p.Config {
		return fmt.Errorf("%s holds a sweep of another base (%s): choose another -out", dir, cmp.Or(old.Experiment, old.Config))
	}
	for _, r := range p.Runs {
		i := slices.IndexFunc(old.Runs, func(o Run) bool { return o.Name == r.Name })
		if i < 0 {
			continue
		}
		o := old.Runs[i]
		if !slices.Equal(o.Set, r.Set) || !sameJSON(o.Resolved, r.Resolved) {
			return fmt.Errorf("%s holds run %s with other settings (planned: %s; now: %s): the sweep file or its base changed, so that run's folder holds another training; choose another -out, or move %s away",
				dir, r.Name, settingList(o.Set), settingList(r.Set), filepath.Join(dir, RunsDir, r.Name))
		}
	}
	return nil
}

// sameJSON reports whether a and b encode to the same JSON (a plan read
// back holds maps where a new one may hold structs).
func sameJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	if err1 != nil || err2 != nil {
		return false
	}
	var va, vb any
	if json.Unmarshal(ja, &va) != nil || json.Unmarshal(jb, &vb) != nil {
		return false
	}
	ja, _ = json.Marshal(va)
	jb, _ = json.Marshal(vb)
	return string(ja) == string(jb)
}

func settingList(s []Setting) string {
	var parts []string
	for _, x := range s {
		parts = append(parts, x.String())
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, " ")
}

// ReadPlan reads dir/plan.json. A missing plan wraps fs.ErrNotExist.
func ReadPlan(dir string) (*Plan, error) {
	f, err := os.Open(filepath.Join(dir, PlanName))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s is not a sweep's folder (no %s): %w", dir, PlanName, err)
		}
		return nil, err
	}
	defer f.Close()
	var p Plan
	if err := jsonfile.Decode(f, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	for _, r := range p.Runs {
		if err := safefile.CheckName(PlanName+" names run", r.Name); err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
	}
	return &p, nil
}

// absolute returns path made absolute, or "" for "".
func absolute(path string) string {
	if path == "" {
		return ""
	}
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}
