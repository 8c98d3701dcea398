package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/dlca/dlca/internal/safefile"
	"github.com/dlca/dlca/internal/tomlerr"
)

// File is a sweep file as written (docs/sweeps.md):
//
//	experiment = "lizard"        # or: config = "lizard.toml"
//	[set]                        # settings every run shares
//	iterations = 2000
//	[grid]                       # every combination of these values
//	wiring_seed = { from = 1, to = 16 }
//	seed = [23]
//	[[runs]]                     # and/or runs listed one by one
//	seed = 5
//	wiring_seed = 7
//
// With both a grid and runs, every listed run is combined with every point
// of the grid.
type File struct {
	Experiment string           `toml:"experiment"` // a built-in experiment
	Config     string           `toml:"config"`     // or an experiment file, relative to the sweep file
	Set        map[string]any   `toml:"set"`
	Grid       map[string]any   `toml:"grid"`
	Runs       []map[string]any `toml:"runs"`

	path string // where it was read from
}

// MaxFileBytes bounds a sweep file: more is a mistaken path (-config
// /dev/zero), refused before it is read whole.
const MaxFileBytes = 1 << 20

// Load reads and checks the sweep file at path. A key the format does not
// know is an error, as is a sweep without a base or with two.
func Load(path string) (*File, error) {
	b, err := safefile.ReadLimited(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("cannot read the sweep file: %w", err)
	}
	var f File
	dec := toml.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		var derr *toml.DecodeError
		var serr *toml.StrictMissingError
		switch {
		case errors.As(err, &serr):
			d := serr.Errors[0]
			row, col := d.Position()
			return nil, fmt.Errorf("%s:%d:%d: unknown key %s: a sweep file has experiment or config, [set], [grid] and [[runs]]; settings go inside those", path, row, col, strings.Join(d.Key(), "."))
		case errors.As(err, &derr):
			row, col := derr.Position()
			msg := tomlerr.Plain(derr.Error())
			if key := derr.Key(); len(key) > 0 {
				msg = strings.Join(key, ".") + ": " + msg
			}
			return nil, fmt.Errorf("%s:%d:%d: %s", path, row, col, msg)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f.path = path
	switch {
	case f.Experiment == "" && f.Config == "":
		return nil, fmt.Errorf("%s: no base: name a built-in experiment (experiment = \"lizard\"; dlca list shows them) or an experiment file (config = \"FILE.toml\")", path)
	case f.Experiment != "" && f.Config != "":
		return nil, fmt.Errorf("%s: both experiment = %q and config = %q: name one base", path, f.Experiment, f.Config)
	}
	if f.Config != "" && !filepath.IsAbs(f.Config) {
		f.Config = filepath.Join(filepath.Dir(path), f.Config)
	}
	return &f, nil
}

// Setting is one key = value of a run, the value as dlca train -set takes it.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

func (s Setting) String() string { return s.Key + "=" + s.Value }

// settings flattens table t (nested tables become dotted keys) into sorted
// settings whose values are single values, for [set] and each [[runs]].
func settings(what string, t map[string]any) ([]Setting, error) {
	var out []Setting
	for key, v := range flatten("", t) {
		s, err := value(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", what, key, err)
		}
		out = append(out, Setting{key, s})
	}
	slices.SortFunc(out, func(a, b Setting) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

// axis is one key of the grid and the values it takes.
type axis struct {
	key    string
	values []string
}

// axes reads the grid: each key's list of values, or a range
// {from = A, to = B} (step = S optional) of integers.
func axes(grid map[string]any) ([]axis, error) {
	var out []axis
	for key, v := range flattenGrid("", grid) {
		a := axis{key: key}
		switch v := v.(type) {
		case []any:
			if len(v) == 0 {
				return nil, fmt.Errorf("[grid] %s: an empty list would make no runs: give at least one value", key)
			}
			for _, e := range v {
				s, err := value(e)
				if err != nil {
					return nil, fmt.Errorf("[grid] %s: %w", key, err)
				}
				a.values = append(a.values, s)
			}
		case badRange:
			return nil, fmt.Errorf("[grid] %s = { from = %d, to = %d, step = %d }: %s", key, v.from, v.to, v.step, v.why)
		case intRange:
			// NOTE: counted in uint64, which holds any int64 span, so that a
			// range near the int64 limits cannot overflow into an endless loop.
			n := (uint64(v.to)-uint64(v.from))/uint64(v.step) + 1
			if n > MaxRuns {
				return nil, fmt.Errorf("[grid] %s = { from = %d, to = %d, step = %d } is %d values; a sweep has at most %d runs: is a digit too many?", key, v.from, v.to, v.step, n, MaxRuns)
			}
			for i := range int64(n) {
				a.values = append(a.values, strconv.FormatInt(v.from+i*v.step, 10))
			}
		default:
			return nil, fmt.Errorf("[grid] %s = %v: give the values as a list (%s = [1, 2, 3]) or a range (%s = { from = 1, to = 16 }); a single value belongs in [set]", key, v, key, key)
		}
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b axis) int { return strings.Compare(a.key, b.key) })
	return out, nil
}

// intRange is a grid range {from, to, step}.
type intRange struct{ from, to, step int64 }

// flattenGrid is flatten for the grid, where a table of from, to and
// (optionally) step is a range, not nested keys.
func flattenGrid(prefix string, t map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range t {
		key := join(prefix, k)
		if sub, ok := v.(map[string]any); ok {
			if r, ok := asRange(sub); ok {
				out[key] = r
				if why := r.wrong(); why != "" {
					out[key] = badRange{r, why}
				}
			} else {
				maps.Copy(out, flattenGrid(key, sub))
			}
			continue
		}
		out[key] = v
	}
	return out
}

// badRange is a grid range that makes no values, and why.
type badRange struct {
	intRange
	why string
}

// wrong says why r makes no values, or "" when it makes some.
func (r intRange) wrong() string {
	switch {
	case r.step <= 0:
		return fmt.Sprintf("step %d: the step must be positive (leave it out for 1)", r.step)
	case r.from > r.to:
		return fmt.Sprintf("from %d is after to %d: a range counts up from from to to", r.from, r.to)
	}
	return ""
}

// asRange reads t as a range if its keys are from, to and maybe step, all
// integers (intRange.wrong says whether it makes values).
func asRange(t map[string]any) (intRange, bool) {
	r := intRange{step: 1}
	for k, v := range t {
		n, ok := v.(int64)
		if !ok {
			return r, false
		}
		switch k {
		case "from":
			r.from = n
		case "to":
			r.to = n
		case "step":
			r.step = n
		default:
			return r, false
		}
	}
	_, hasFrom := t["from"]
	_, hasTo := t["to"]
	return r, hasFrom && hasTo
}

// flatten turns nested tables into dotted keys.
func flatten(prefix string, t map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range t {
		if sub, ok := v.(map[string]any); ok {
			maps.Copy(out, flatten(join(prefix, k), sub))
			continue
		}
		out[join(prefix, k)] = v
	}
	return out
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// value writes a TOML value as dlca train -set takes it (TOML, or a bare
// string): a number, a boolean or a string as is, a list as a TOML array;
// a string that would read as another value ("true", "12") is quoted.
func value(v any) (string, error) {
	switch v := v.(type) {
	case string:
		var probe map[string]any
		if toml.Unmarshal([]byte("v = "+v), &probe) == nil {
			if _, isString := probe["v"].(string); !isString {
				return strconv.Quote(v), nil
			}
		}
		return v, nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), nil
	case bool:
		return strconv.FormatBool(v), nil
	case []any:
		var parts []string
		for _, e := range v {
			s, err := value(e)
			if err != nil {
				return "", err
			}
			if _, ok := e.(string); ok {
				s = strconv.Quote(s)
			}
			parts = append(parts, s)
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	}
	return "", fmt.Errorf("%v (%T) is not a value a setting can take: use a number, a string, true/false or a list", v, v)
}
