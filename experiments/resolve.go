package experiments

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/internal/safefile"
	"github.com/dlca/dlca/internal/state"
)

// Resolve checks the whole configuration and returns the experiment it
// describes. Every problem is reported, each naming its key and, for a
// file, its line: a model that cannot be built (a layer too small for
// unique wiring), loss channels beyond the channels, a target larger than
// the grid, a check that does not fit the target. The files it names (init
// and target) are read here.
func (c *Config) Resolve() (*Experiment, error) {
	p := &problems{c: c}
	model := dlca.Config{
		Height: c.Height, Width: c.Width, Channels: c.Channels, Boundary: c.Boundary,
		Kernels: c.Kernels, KernelLayers: slices.Clone(c.KernelLayers), UpdateLayers: slices.Clone(c.UpdateLayers),
		Seed: c.WiringSeed, PassThrough: c.PassThrough, FireRate: c.FireRate, RNG: c.RNG,
	}
	switch c.Wiring {
	case "unique": // dlca's default, ""
	case "random":
		model.Wiring = dlca.WiringRandom
	default:
		p.add("wiring", "%q: use \"unique\" (every input of a layer read at least once) or \"random\"", c.Wiring)
	}
	if err := safefile.CheckName("name", c.Name); err != nil {
		p.errs = append(p.errs, fmt.Errorf("%s%w", c.at("name"), err))
	}
	p.model(model.Validate())
	c.checkTraining(p)
	e := &Experiment{
		Name: c.Name, Description: c.Description, Model: model,
		Batch: c.Batch, Steps: c.Steps, Iterations: c.Iterations, Seed: c.Seed,
		LossChannels: slices.Clone(c.LossChannels), Async: c.Async, Colour: c.Colour, StraightThroughFrom: c.StraightThroughFrom,
		StatePenalty: c.StatePenalty, StatePenaltyFrom: c.StatePenaltyFrom,
		Optimizer: bptt.Optimizer{LR: c.LR, Beta1: c.Betas[0], Beta2: c.Betas[1], Eps: c.Eps, WeightDecay: c.WeightDecay, Clip: c.Clip},
		Config:    c.Clone(),
	}
	if c.Channels >= 1 && c.Height >= 1 && c.Width >= 1 {
		e.Init = c.init(p)
		var size [2]int
		e.Target, e.TargetOf, size = c.target(p)
		e.Checks = c.checks(p, size)
	}
	if err := p.err(); err != nil {
		return nil, err
	}
	return e, nil
}

// problems gathers Resolve's errors, each prefixed by where its key was set.
type problems struct {
	c    *Config
	errs []error
}

func (p *problems) add(key, format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf("%s%s: %s", p.c.at(key), key, fmt.Sprintf(format, args...)))
}

func (p *problems) err() error { return errors.Join(p.errs...) }

// model adds the errors of dlca.Config.Validate, each under the key its
// message starts with (dlca names its fields as the file does).
func (p *problems) model(err error) {
	if err == nil {
		return
	}
	errs := []error{err}
	if j, ok := errors.Unwrap(err).(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	for _, e := range errs {
		msg := e.Error()
		key, _, _ := strings.Cut(msg, " ")
		key, _, _ = strings.Cut(key, "[")
		if key == "grid" {
			key = "height"
		}
		p.errs = append(p.errs, fmt.Errorf("%s%s", p.c.at(key), msg))
	}
}

// at says where key was set, "file.toml:12: ", "-set: ", or "file.toml: "
// for a key the file leaves to its default; "" for a built-in experiment.
// A key inside a table or array stands for its own key when that was not
// listed (inline tables).
func (c *Config) at(key string) string {
	for k := key; k != ""; {
		if w, ok := c.where[k]; ok {
			return w + ": "
		}
		if i := strings.LastIndexAny(k, ".["); i >= 0 {
			k = k[:i]
		} else {
			k = ""
		}
	}
	if c.source != "" {
		return c.source + ": "
	}
	return ""
}

// checkTraining checks the training and optimiser settings.
func (c *Config) checkTraining(p *problems) {
	positive := func(key string, v int) {
		if v < 1 {
			p.add(key, "%d: must be at least 1", v)
		}
	}
	positive("batch", c.Batch)
	positive("steps", c.Steps)
	positive("iterations", c.Iterations)
	if len(c.LossChannels) == 0 {
		p.add("loss_channels", "empty: name the channels the target describes, e.g. [0]")
	}
	for i, k := range c.LossChannels {
		if c.Channels < 1 {
			break // the channels' own error says it
		}
		if k < 0 || k >= c.Channels {
			p.add("loss_channels", "channel %d is beyond the %d channels (0 to %d)", k, c.Channels, c.Channels-1)
		} else if slices.Contains(c.LossChannels[:i], k) {
			p.add("loss_channels", "names channel %d twice", k)
		}
	}
	if c.Colour && c.Channels < 3 {
		p.add("colour", "needs at least 3 channels (red, green, blue), not %d", c.Channels)
	}
	// Every number is finite: an infinity trains into a model no file can
	// hold (JSON has no Inf), so the run could never write its outputs.
	if !(c.LR > 0 && c.LR <= maxLR) {
		p.add("lr", "%v: must be positive and at most %v (the paper uses 0.05)", c.LR, maxLR)
	}
	for i, b := range c.Betas {
		if !(b >= 0 && b < 1) {
			p.add("betas", "beta%d %v: must be in [0, 1) (the paper's are [0.9, 0.99])", i+1, b)
		}
	}
	if !(c.Eps >= 0) || math.IsInf(c.Eps, 1) {
		p.add("eps", "%v: must be finite, not negative (the paper uses 1e-8)", c.Eps)
	}
	switch {
	case !(c.WeightDecay >= 0) || math.IsInf(c.WeightDecay, 1):
		p.add("weight_decay", "%v: must be finite, not negative (the paper uses 0.01)", c.WeightDecay)
	case c.LR > 0 && c.LR <= maxLR && c.LR*c.WeightDecay >= 1:
		p.add("weight_decay", "%v: with lr %v the decay step (each logit times 1 - lr x weight_decay) would flip or zero the logits; lr x weight_decay must be below 1 (the paper's: 0.05 x 0.01)", c.WeightDecay, c.LR)
	}
	if !(c.Clip > 0) || math.IsInf(c.Clip, 1) {
		p.add("clip", "%v: must be positive and finite (the paper uses 100)", c.Clip)
	}
	switch {
	case c.StraightThroughFrom < 0:
		p.add("straight_through_from", "%d: must not be negative (0, the paper's method, trains soft throughout)", c.StraightThroughFrom)
	case c.StraightThroughFrom > c.Iterations:
		p.add("straight_through_from", "iteration %d is after the last (%d): the run would never train straight-through", c.StraightThroughFrom, c.Iterations)
	}
	switch {
	case !(c.StatePenalty >= 0) || c.StatePenalty > maxStatePenalty:
		p.add("state_penalty", "%v: must be a finite weight of 0 to %v, not negative (0, the paper's method, adds no penalty; 0.01 closed the coloured G's gap in docs/experiments.md)", c.StatePenalty, maxStatePenalty)
	case c.StatePenaltyFrom < 0:
		p.add("state_penalty_from", "%d: must not be negative (0 or 1 adds the penalty from the first iteration)", c.StatePenaltyFrom)
	case c.StatePenaltyFrom > 0 && c.StatePenalty == 0:
		p.add("state_penalty_from", "iteration %d, but state_penalty is 0: give state_penalty a weight (such as 0.01) or leave state_penalty_from out", c.StatePenaltyFrom)
	case c.StatePenaltyFrom > c.Iterations:
		p.add("state_penalty_from", "iteration %d is after the last (%d): the run would never add the penalty", c.StatePenaltyFrom, c.Iterations)
	}
}

// init returns the initial state's Init.
func (c *Config) init(p *problems) func(*rand.Rand, int, int, int) []float32 {
	in := c.Init
	if in.Kind != "file" {
		p.noPicture("init", in.Kind, in.Picture)
	}
	if in.Kind != "centre" && len(in.Channels) > 0 {
		p.add("init.channels", "only kind = \"centre\" takes channels")
	}
	switch in.Kind {
	case "random":
		return RandomBits
	case "zeros":
		return Zeros
	case "centre":
		if len(in.Channels) == 0 {
			return CentreSeed
		}
		for _, k := range in.Channels {
			if k < 0 || k >= c.Channels {
				p.add("init.channels", "channel %d is beyond the %d channels", k, c.Channels)
				return nil
			}
		}
		return centreSeed(in.Channels)
	case "file":
		g := c.picture(p, "init", in.Picture, c.Channels)
		if g == nil {
			return nil
		}
		return func(_ *rand.Rand, h, w, _ int) []float32 { return g.Centred(h, w) }
	}
	p.add("init.kind", "%q: use random, centre, zeros or file", in.Kind)
	return nil
}

// centreSeed is CentreSeed with only the given channels of the centre cell
// set.
func centreSeed(channels []int) func(*rand.Rand, int, int, int) []float32 {
	return func(_ *rand.Rand, h, w, c int) []float32 {
		s := make([]float32, h*w*c)
		centre := (h/2*w + w/2) * c
		for _, k := range channels {
			s[centre+k] = 1
		}
		return s
	}
}

// builtinTargets are the targets drawn by code: their function, the loss
// channels they describe and the side of their picture (0: any grid).
var builtinTargets = map[string]struct {
	target   func(h, w int) []float32
	channels int
	side     int
}{
	"checkerboard":   {Checkerboard, 1, 0},
	"lizard":         {Lizard, 1, LizardSize},
	"colour-g":       {ColourG, 3, GSize},
	"lizard-drawn":   {DrawnLizard, 1, LizardSize},
	"colour-g-drawn": {DrawnColourG, 3, GSize},
}

// target returns the target's Target or TargetOf and the size of its
// picture (zero for a pattern that fills any grid).
func (c *Config) target(p *problems) (target func(h, w int) []float32, targetOf func([]float32, int, int, int) []float32, size [2]int) {
	t := c.Target
	n := len(c.LossChannels)
	if t.Kind != "png" && t.Kind != "" {
		p.noPicture("target", t.Kind, t.Picture)
	}
	if b, ok := builtinTargets[t.Kind]; ok {
		if n != b.channels {
			p.add("loss_channels", "%d channels, but target %s describes %d", n, t.Kind, b.channels)
		}
		size = [2]int{b.side, b.side}
		c.fits(p, "target.kind", t.Kind, size)
		return b.target, nil, size
	}
	switch t.Kind {
	case "gameoflife":
		if n != 1 {
			p.add("loss_channels", "%d channels, but target gameoflife describes 1 (Life of channel 0)", n)
		}
		return nil, lifeTarget, size
	case "png":
		if t.Channel != 0 {
			p.add("target.channel", "a target's bits go to the loss channels: leave channel out")
		}
		if len(t.Palette) == 0 && n != 1 {
			p.add("target.threshold", "a threshold gives 1 channel, but loss_channels has %d: give a palette", n)
		}
		for key, bits := range t.Palette {
			if len(bits) != n {
				p.add("target.palette", "colour %s has %d bits, one per loss channel wants %d", key, len(bits), n)
				return nil, nil, size
			}
		}
		g := c.picture(p, "target", t.Picture, n)
		if g == nil {
			return nil, nil, size
		}
		size = [2]int{g.Height, g.Width}
		c.fits(p, "target.file", t.File, size)
		return func(h, w int) []float32 { return g.Centred(h, w) }, nil, size
	}
	if t.Kind == "" {
		p.add("target.kind", "missing: use png, checkerboard, gameoflife, lizard, colour-g, lizard-drawn or colour-g-drawn")
	} else {
		p.add("target.kind", "%q: use png, checkerboard, gameoflife, lizard, colour-g, lizard-drawn or colour-g-drawn", t.Kind)
	}
	return nil, nil, size
}

// fits adds an error if a picture of size does not fit the training grid.
func (c *Config) fits(p *problems, key, what string, size [2]int) {
	if size[0] > c.Height || size[1] > c.Width {
		p.add(key, "%s is %dx%d, larger than the %dx%d grid (height x width)", what, size[0], size[1], c.Height, c.Width)
	}
}

// noPicture adds an error for picture settings a kind does not read.
func (p *problems) noPicture(table, kind string, pic Picture) {
	if pic.File != "" || pic.Threshold != 0 || pic.Channel != 0 || len(pic.Palette) > 0 {
		p.add(table, "file, threshold, channel and palette are read only with kind = %q, not %q", map[string]string{"init": "file", "target": "png"}[table], kind)
	}
}

// picture reads the state file of table (init or target) as a state of
// channels channels, through the one state reader (internal/state) that
// dlca eval's -init uses too.
func (c *Config) picture(p *problems, table string, pic Picture, channels int) *state.State {
	if pic.File == "" {
		p.add(table+".file", "missing: name a .png or .npy file")
		return nil
	}
	if strings.EqualFold(filepath.Ext(pic.File), ".npy") && (len(pic.Palette) > 0 || pic.Threshold != 0 || pic.Channel != 0) {
		p.add(table, "threshold, channel and palette are for PNG pictures; a .npy file holds the bits themselves")
		return nil
	}
	// MaxSide refuses a huge picture by its header, before it is decoded
	// (one larger than the grid is refused after, by fits).
	spec := state.Spec{Channels: channels, Threshold: pic.Threshold, Channel: pic.Channel, MaxSide: state.LargestSide}
	if spec.Threshold == 0 {
		spec.Threshold = state.DefaultThreshold
	}
	if len(pic.Palette) > 0 {
		pal, err := state.ParsePalette(paletteText(pic.Palette))
		if err != nil {
			p.add(table+".palette", "%v", err)
			return nil
		}
		spec.Palette = pal
	}
	g, err := state.Load(pic.File, spec)
	if err != nil {
		p.add(table+".file", "%v", err)
		return nil
	}
	if table == "init" {
		c.fits(p, "init.file", pic.File, [2]int{g.Height, g.Width})
	}
	return g
}

// maxLR is the largest learning rate a configuration may give, the one a
// checkpoint's optimiser state may hold (bptt refuses more on load).
const maxLR = 1000

// maxStatePenalty bounds state_penalty: far larger weights make every
// gradient overflow to NaN at the first iteration.
const maxStatePenalty = 1e6

// paletteText writes a file's palette table in the text form that
// state.ParsePalette reads (and dlca eval's -palette takes): #rrggbb=BITS,...
// in the order of the colours, so that errors come in a stable order.
func paletteText(palette map[string][]int) string {
	var entries []string
	for _, colour := range slices.Sorted(maps.Keys(palette)) {
		var bits strings.Builder
		for _, b := range palette[colour] {
			fmt.Fprint(&bits, b)
		}
		entries = append(entries, colour+"="+bits.String())
	}
	return strings.Join(entries, ",")
}
