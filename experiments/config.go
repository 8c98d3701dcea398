package experiments

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/dlca/dlca/circuit"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/internal/jsonfile"
	"github.com/dlca/dlca/internal/safefile"
	"github.com/dlca/dlca/internal/tomlerr"
)

// Config is an experiment as data: every setting of a run, as an experiment
// file (TOML, docs/config.md) holds it. Resolve turns it into the Experiment
// that trains; the built-in experiments are Configs too, so a file printed
// from one (WriteTOML) trains exactly what its name does.
//
// The toml tags are the file's keys; the json tags are the same keys in the
// records a run leaves (run.json, the model file).
type Config struct {
	Name        string `toml:"name" json:"name" comment:"the run's label (checkpoints, run.json, pictures)"`
	Description string `toml:"description,omitempty" json:"description,omitempty"`

	// The cellular automaton (dlca.Config).
	Height       int              `toml:"height" json:"height" comment:"training grid"`
	Width        int              `toml:"width" json:"width"`
	Channels     int              `toml:"channels" json:"channels" comment:"state bits per cell"`
	Boundary     circuit.Boundary `toml:"boundary" json:"boundary" comment:"zero or periodic"`
	Kernels      int              `toml:"kernels" json:"kernels" comment:"perception kernels"`
	KernelLayers []int            `toml:"kernel_layers" json:"kernel_layers" comment:"perception layer widths: 9, 8, then unique-wired layers"`
	UpdateLayers []int            `toml:"update_layers" json:"update_layers" comment:"update network layers; the last has channels gates"`
	Wiring       string           `toml:"wiring" json:"wiring" comment:"unique (every input read at least once) or random"`
	PassThrough  float64          `toml:"pass_through" json:"pass_through" comment:"initial logit of the pass-through gate"`
	FireRate     float64          `toml:"fire_rate" json:"fire_rate" comment:"probability that a cell fires in an asynchronous step"`
	WiringSeed   uint64           `toml:"wiring_seed" json:"wiring_seed"`

	// Training (bptt.Setup, bptt.Run).
	Seed         uint64 `toml:"seed" json:"seed" comment:"seeds the batches and fire masks"`
	RNG          string `toml:"rng,omitempty" json:"rng,omitempty" comment:"random stream of the wiring, batches and fire masks: pcg (the default) or jax (the paper's notebook's)"`
	Batch        int    `toml:"batch" json:"batch" comment:"initial states per iteration"`
	Steps        int    `toml:"steps" json:"steps" comment:"steps rolled out and backpropagated through"`
	Iterations   int    `toml:"iterations" json:"iterations"`
	Async        bool   `toml:"async" json:"async" comment:"train asynchronously (each cell fires with fire_rate)"`
	LossChannels []int  `toml:"loss_channels" json:"loss_channels" comment:"channels compared with the target"`
	Colour       bool   `toml:"colour" json:"colour" comment:"pictures paint channels 0, 1, 2 as red, green, blue"`

	// The optimiser (bptt.Optimizer): AdamW with gradient clipping.
	LR          float64    `toml:"lr" json:"lr" comment:"learning rate"`
	Betas       [2]float64 `toml:"betas" json:"betas"`
	Eps         float64    `toml:"eps" json:"eps"`
	WeightDecay float64    `toml:"weight_decay" json:"weight_decay"`
	Clip        float64    `toml:"clip" json:"clip" comment:"every gradient element is clipped to [-clip, clip]"`

	// Not the paper's method: an option against the relaxation gap
	// (bptt.Run.StraightThroughFrom), off when 0. Left out of a file and
	// of the records when 0, so that every earlier run's stay as they were.
	StraightThroughFrom int `toml:"straight_through_from,omitempty" json:"straight_through_from,omitempty" comment:"not the paper's: from this iteration on, train straight-through (the circuit's gates forward, the soft gradient back); 0 = never"`
	// Not the paper's method either (bptt.Run.StatePenalty): off when 0,
	// and left out of files and records then, like StraightThroughFrom.
	StatePenalty     float64 `toml:"state_penalty,omitempty" json:"state_penalty,omitempty" comment:"not the paper's: add this times the sum of x(1-x) over the intermediate states' values to the loss (0 only on bits); 0 = never"`
	StatePenaltyFrom int     `toml:"state_penalty_from,omitempty" json:"state_penalty_from,omitempty" comment:"the first iteration that adds state_penalty (0 or 1: from the start)"`

	Init   InitSpec    `toml:"init" json:"init"`
	Target TargetSpec  `toml:"target" json:"target"`
	Checks []CheckSpec `toml:"checks" json:"checks" comment:"run on the trained circuit (dlca check)"`

	// source names the file c was read from and where says where each key
	// was set ("file.toml:12", "-set"), for errors; both empty for a
	// built-in experiment.
	source string
	where  map[string]string
}

// InitSpec is the initial state of every training grid ([init]).
type InitSpec struct {
	// Kind is random (every bit uniform), centre (zeros but the centre
	// cell), zeros, or file (a state read from File).
	Kind string `toml:"kind" json:"kind" comment:"random, centre, zeros or file"`
	// Channels are the centre cell's channels set to 1 (centre; all when
	// empty).
	Channels []int `toml:"channels,omitempty" json:"channels,omitempty"`
	Picture
}

// TargetSpec is the wanted final state of the loss channels ([target]).
type TargetSpec struct {
	// Kind is png (a picture, File) or one of the built-in targets:
	// checkerboard, gameoflife (one step of Life from the initial state),
	// lizard and colour-g (the paper's masks, targets/), lizard-drawn and
	// colour-g-drawn (this project's own drawings, shapes.go).
	Kind string `toml:"kind" json:"kind" comment:"png, checkerboard, gameoflife, lizard, colour-g, lizard-drawn or colour-g-drawn"`
	Picture
}

// Picture says how a state file becomes bits: a PNG through Threshold (one
// channel) or Palette (colours to channel bits), or a NumPy .npy file of
// 0/1 values [H, W, C] (see package internal/state).
type Picture struct {
	File      string  `toml:"file,omitempty" json:"file,omitempty" comment:"PNG or .npy, relative to this file"`
	Threshold float64 `toml:"threshold,omitempty" json:"threshold,omitempty" comment:"PNG without palette: a pixel at least this grey (0 black to 1 white; default 0.5) is 1"`
	Channel   int     `toml:"channel,omitempty" json:"channel,omitempty" comment:"with threshold: the channel the bits go to (init only)"`
	// Palette maps colours ("#rrggbb") to channel bits.
	Palette map[string][]int `toml:"palette,omitempty" json:"palette,omitempty"`
}

// CheckSpec is one check to run on the trained circuit ([[checks]]). Which
// of the numbers a kind takes is in checkKinds.
type CheckSpec struct {
	Kind      string `toml:"kind" json:"kind"`
	Size      int    `toml:"size,omitempty" json:"size,omitempty"`
	Steps     int    `toml:"steps,omitempty" json:"steps,omitempty"`
	Hole      int    `toml:"hole,omitempty" json:"hole,omitempty"`
	HealAfter int    `toml:"heal_after,omitempty" json:"heal_after,omitempty"`
	Square    int    `toml:"square,omitempty" json:"square,omitempty"`
	// Allow is the bar a check is judged against, the paper's own figure
	// where it has one (paper.go): the wrong cells fault-tolerance allows
	// after its steps (default 0), the mean error robustness allows over
	// its second half (default 0: 5% of the cells).
	Allow       int  `toml:"allow,omitempty" json:"allow,omitempty" comment:"fault-tolerance: wrong cells allowed; robustness: mean error allowed (the paper's figure)"`
	EitherPhase bool `toml:"either_phase,omitempty" json:"either_phase,omitempty"`
}

// Defaults returns the settings a file need not give: the paper's
// optimiser, pass-through logit and fire rate, unique wiring, a zero
// boundary, seeds 23, random initial bits.
func Defaults() Config {
	return Config{
		Boundary: circuit.Zero, Wiring: "unique", PassThrough: dlca.DefaultPassThrough, FireRate: dlca.DefaultFireRate,
		WiringSeed: 23, Seed: 23,
		LR: 0.05, Betas: [2]float64{0.9, 0.99}, Eps: 1e-8, WeightDecay: 0.01, Clip: 100,
		Init: InitSpec{Kind: "random"},
	}
}

// MaxFileBytes bounds an experiment file (and a sweep file): the largest
// built-in experiment is a few kilobytes, so a file over 1 MiB is a
// mistaken path (-config /dev/zero), refused before it is read whole.
const MaxFileBytes = 1 << 20

// Load reads an experiment file. Settings it leaves out take their
// Defaults; Name defaults to the file's name without its extension.
// Relative paths in it are taken from the file's folder and made absolute.
// Unknown keys and values of the wrong type are errors naming the key and
// its line. Load does not check the combination: Resolve does.
func Load(path string) (*Config, error) {
	data, err := safefile.ReadLimited(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("cannot read the experiment file: %w", err)
	}
	c, err := Parse(data, path)
	if err != nil {
		return nil, err
	}
	if c.Name == "" {
		c.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	c.absPaths(filepath.Dir(path))
	return c, nil
}

// Parse reads an experiment file's text, source naming it in errors.
// Relative paths stay as they are (Load resolves them).
func Parse(data []byte, source string) (*Config, error) {
	c := Defaults()
	c.source, c.where = source, map[string]string{}
	if err := decode(data, &c, source); err != nil {
		return nil, err
	}
	for key, line := range keyLines(data) {
		c.where[key] = fmt.Sprintf("%s:%d", source, line)
	}
	var missing []string
	for _, key := range required {
		if c.at(key) == source+": " {
			missing = append(missing, key)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s: missing %s: an experiment file must give them (docs/config.md; dlca config -experiment NAME prints a complete one)", source, strings.Join(missing, ", "))
	}
	return &c, nil
}

// required are the keys without a default, which every file gives.
var required = []string{"height", "width", "channels", "kernels", "kernel_layers", "update_layers", "batch", "steps", "iterations", "loss_channels"}

// decode decodes TOML data into c strictly (unknown keys are errors),
// keeping what data does not set. Errors name source, the line and the key.
func decode(data []byte, c *Config, source string) error {
	d := toml.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	err := d.Decode(c)
	if err == nil {
		return nil
	}
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		var errs []error
		for _, e := range strict.Errors {
			row, _ := e.Position()
			key := strings.Join(e.Key(), ".")
			hint := "docs/config.md lists the keys"
			if s := suggestKey(key); s != "" {
				hint = "did you mean " + s + "? " + hint
			}
			errs = append(errs, fmt.Errorf("%s:%d: unknown key %s (%s)", source, row, key, hint))
		}
		return errors.Join(errs...)
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		row, _ := de.Position()
		msg := tomlerr.Plain(de.Error())
		if key := de.Key(); len(key) > 0 {
			return fmt.Errorf("%s:%d: %s: %s", source, row, strings.Join(key, "."), msg)
		}
		return fmt.Errorf("%s:%d: %s", source, row, msg)
	}
	return fmt.Errorf("%s: %w", source, err)
}

// Set changes one setting, as the command line's -set key=value does: key
// is the file's key, dotted for a table's ("lr", "target.file"), and value
// a TOML value; a value that is not one is taken as a string
// (boundary=periodic). Relative paths are taken from the working folder.
// The checks are replaced as a whole, as an array of inline tables
// (checks=[] runs none).
func (c *Config) Set(key, value string) error {
	key = strings.TrimSpace(key)
	if key == "" || strings.ContainsAny(key+value, "\n\r") {
		return fmt.Errorf("-set %q: want key=value on one line, e.g. lr=0.03", key+"="+value)
	}
	source := "-set " + key
	doc := key + " = " + value
	var probe map[string]any
	if err := toml.Unmarshal([]byte(doc), &probe); err != nil {
		if wholeNumber.MatchString(strings.TrimSpace(value)) {
			// Digits that TOML refuses are out of its range, not a string.
			return fmt.Errorf("-set %s=%s: out of range: a whole number must lie within ±%d", key, value, int64(math.MaxInt64))
		}
		doc = key + " = " + quote(value)
	}
	if err := decode([]byte(doc), c, source); err != nil {
		// The message already names the key; drop the document's line.
		return errors.New(strings.Replace(err.Error(), source+":1: ", "-set: ", 1))
	}
	if c.where == nil {
		c.where = map[string]string{}
	}
	// What the file said under key is gone (a table or array replaced).
	for k := range c.where {
		if strings.HasPrefix(k, key+".") || strings.HasPrefix(k, key+"[") {
			delete(c.where, k)
		}
	}
	c.where[key] = "-set"
	c.absPaths(".")
	return nil
}

// wholeNumber matches what a user types as a whole number (digits, an
// optional sign, TOML's underscores between digits).
var wholeNumber = regexp.MustCompile(`^[+-]?[0-9][0-9_]*$`)

// quote returns s as a TOML basic string.
func quote(s string) string {
	b, _ := toml.Marshal(map[string]string{"v": s})
	return strings.TrimSpace(strings.TrimPrefix(string(b), "v = "))
}

// absPaths makes the relative file paths in c absolute, from dir.
func (c *Config) absPaths(dir string) {
	for _, p := range []*string{&c.Init.File, &c.Target.File} {
		if *p != "" && !filepath.IsAbs(*p) {
			if abs, err := filepath.Abs(filepath.Join(dir, *p)); err == nil {
				*p = abs
			}
		}
	}
}

// WriteTOML writes c as an experiment file, every setting spelled out, so
// that Load of what it wrote gives c again.
func (c *Config) WriteTOML(w io.Writer) error {
	if c.Seed > math.MaxInt64 || c.WiringSeed > math.MaxInt64 {
		return fmt.Errorf("seed %d, wiring seed %d: an experiment file holds seeds up to %d", c.Seed, c.WiringSeed, int64(math.MaxInt64))
	}
	fmt.Fprintf(w, "# dlca experiment file (docs/config.md): train it with dlca train -config FILE\n\n")
	enc := toml.NewEncoder(w)
	enc.SetIndentTables(false)
	return enc.Encode(c)
}

// Clone returns a deep copy of c.
func (c *Config) Clone() *Config {
	d := *c
	d.KernelLayers = append([]int(nil), c.KernelLayers...)
	d.UpdateLayers = append([]int(nil), c.UpdateLayers...)
	d.LossChannels = append([]int(nil), c.LossChannels...)
	d.Init.Channels = append([]int(nil), c.Init.Channels...)
	d.Init.Palette = clonePalette(c.Init.Palette)
	d.Target.Palette = clonePalette(c.Target.Palette)
	d.Checks = append([]CheckSpec(nil), c.Checks...)
	d.where = map[string]string{}
	for k, v := range c.where {
		d.where[k] = v
	}
	return &d
}

func clonePalette(p map[string][]int) map[string][]int {
	if p == nil {
		return nil
	}
	q := make(map[string][]int, len(p))
	for k, v := range p {
		q[k] = append([]int(nil), v...)
	}
	return q
}

// RecordIn writes c into m as the experiment it was trained by (its JSON
// record in m.Experiment), which dlca eval, check, export and the viewer's
// replay read back with FromRecord. Every trainer that saves a model calls
// it: dlca train, dlca-view -train and the training page.
func (c *Config) RecordIn(m *dlca.Model) error {
	record, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("recording experiment %s in the model: %w", c.Name, err)
	}
	m.Experiment = record
	return nil
}

// FromRecord reads the JSON record of a configuration (what a model file
// and run.json hold), source naming it in errors.
func FromRecord(record []byte, source string) (*Config, error) {
	c := Defaults()
	if err := jsonfile.Decode(bytes.NewReader(record), &c); err != nil {
		return nil, fmt.Errorf("%s: its experiment record: %w", source, err)
	}
	c.source, c.where = source, map[string]string{}
	return &c, nil
}
