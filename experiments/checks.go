package experiments

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/internal/memlimit"
)

// checkSeed seeds the initial states (and fire masks) of the checks, so that
// a check gives the same answer every time it runs on the same model (on
// the JAX stream the notebook's keys take its place: checkdraw.go).
const checkSeed = 1

// Rollout runs the hard circuit of m on one size x size grid from e's initial
// state (checkInit) for steps steps, asynchronous ones firing by
// checkFireSeed. When damage is true, the centre hole x hole square
// is zeroed (every channel) in the initial state and after every step up to
// damageUntil. It returns every state, the initial one first.
func Rollout(e *Experiment, m *dlca.Model, size, steps, hole, damageUntil int) []dlca.Bits {
	frames, _ := rollout(e, m, size, steps, hole, damageUntil, 1)
	return frames
}

// MaxCheckFrames bounds the states a check keeps for its animation: a
// longer rollout keeps every stride-th state (CheckStride) and its last,
// so that a check's memory does not grow with its steps.
const MaxCheckFrames = 512

// CheckStride is the stride between the kept states of a check's rollout
// of steps steps: 1 (every state) up to MaxCheckFrames states.
func CheckStride(steps int) int {
	return max(1, (steps+MaxCheckFrames-1)/MaxCheckFrames)
}

// checkRollout is Rollout keeping the states a check's animation shows
// (every CheckStride-th and the last) and, in at, the states at the steps
// named in want.
func checkRollout(e *Experiment, m *dlca.Model, size, steps, hole, damageUntil int, want ...int) (frames []dlca.Bits, at map[int]*dlca.Bits) {
	return rollout(e, m, size, steps, hole, damageUntil, CheckStride(steps), want...)
}

// rollout runs Rollout's rollout, keeping every stride-th state and the
// last as frames, and the states at the steps in want in at.
func rollout(e *Experiment, m *dlca.Model, size, steps, hole, damageUntil, stride int, want ...int) (frames []dlca.Bits, at map[int]*dlca.Bits) {
	c := m.Config.Channels
	init := dlca.BitsOf(autograd.New(e.checkInit(size, c), 1, size, size, c))
	damage := func(s *dlca.Bits) {
		lo := (size - hole) / 2
		for y := lo; y < lo+hole; y++ {
			for x := lo; x < lo+hole; x++ {
				for k := range c {
					s.Set(0, y, x, k, 0)
				}
			}
		}
	}
	if hole > 0 && damageUntil > 0 {
		damage(init)
	}
	at = map[int]*dlca.Bits{}
	keep := func(t int, s *dlca.Bits) {
		if t%stride == 0 || t == steps {
			frames = append(frames, *s.Clone())
		}
		if slices.Contains(want, t) {
			at[t] = s.Clone()
		}
	}
	keep(0, init)
	m.Circuit().Rollout(init, steps, dlca.HardOptions{Async: e.Async, Seed: e.checkFireSeed(), Stop: e.Stop, After: func(t int, s *dlca.Bits) {
		if hole > 0 && t <= damageUntil {
			damage(s)
		}
		keep(t, s)
	}})
	if len(at) < len(want) { // stopped early: the states a check reads exist
		for _, t := range want {
			if at[t] == nil {
				at[t] = frames[len(frames)-1].Clone()
			}
		}
	}
	return frames, at
}

// keptFrames is the number of states checkRollout keeps of a rollout of
// steps steps.
func keptFrames(steps int) int {
	return steps/CheckStride(steps) + 2
}

// CheckMemory estimates the memory a check adds to its process (before
// memlimit.WithOverhead): the states its rollout keeps, the current and next
// states, the target of its grid as floats and a fire mask, and a curve's
// value per step. A check that runs twice (either phase) is counted twice.
func CheckMemory(c Check, channels, lossChannels int) int64 {
	side := float64(c.Side)
	state := side * float64((c.Side+63)/64*8) * float64(channels)
	live := (float64(c.Frames)+3)*state + side*side*(4*float64(lossChannels)+1) + 8*float64(c.Steps)
	return int64(min(live*float64(max(c.Runs, 1)), math.MaxInt64/4))
}

// WrongCells counts the cells of s whose loss channels differ from e's
// target on s's grid, skipping the centre hole x hole square.
func WrongCells(e *Experiment, s *dlca.Bits, hole int) int {
	wrong := 0
	forWrongCells(e, s, hole, func(int, int) { wrong++ })
	return wrong
}

// WrongMask returns, for each cell of image 0 of s in row-major order,
// whether its loss channels differ from e's target (the cells WrongCells
// counts, with no hole), or nil when e has no fixed target (its target
// depends on the initial state, as Game of Life's does).
func WrongMask(e *Experiment, s *dlca.Bits) []bool {
	if e.Target == nil {
		return nil
	}
	wrong := make([]bool, s.Height*s.Width)
	forWrongCells(e, s, 0, func(y, x int) { wrong[y*s.Width+x] = true })
	return wrong
}

// forWrongCells calls f(y, x) for every cell of image 0 of s, outside the
// centre hole x hole square, whose loss channels differ from e's target.
func forWrongCells(e *Experiment, s *dlca.Bits, hole int, f func(y, x int)) {
	target := e.Target(s.Height, s.Width)
	n := len(e.LossChannels)
	lo, lox := (s.Height-hole)/2, (s.Width-hole)/2
	for y := range s.Height {
		for x := range s.Width {
			if hole > 0 && y >= lo && y < lo+hole && x >= lox && x < lox+hole {
				continue
			}
			for j, k := range e.LossChannels {
				want := uint8(0)
				if target[(y*s.Width+x)*n+j] > 0.5 {
					want = 1
				}
				if s.Get(0, y, x, k) != want {
					f(y, x)
					break
				}
			}
		}
	}
}

// nearestWrong returns the distance (in cells, Chebyshev) from the centre
// hole x hole square to the nearest wrong cell of s: whether the damage
// spoilt its surroundings or errors lie elsewhere. It assumes a wrong cell.
func nearestWrong(e *Experiment, s *dlca.Bits, hole int) int {
	lo, lox := (s.Height-hole)/2, (s.Width-hole)/2
	near := s.Height + s.Width
	forWrongCells(e, s, hole, func(y, x int) {
		near = min(near, max(lo-y, y-(lo+hole-1), lox-x, x-(lox+hole-1)))
	})
	return near
}

// damageCheck runs e's initial state on a size x size grid for steps steps,
// the centre hole x hole square zeroed up to step damageUntil (none when
// hole or damageUntil is 0), and counts the wrong cells at the end outside
// the centre skip x skip square.
func damageCheck(name, desc string, size, steps, hole, damageUntil, skip int) Check {
	return Check{Name: name, Description: desc, Side: size, Steps: steps, Frames: keptFrames(steps), Run: func(e *Experiment, m *dlca.Model) CheckResult {
		frames, _ := checkRollout(e, m, size, steps, hole, damageUntil)
		final := &frames[len(frames)-1]
		wrong := WrongCells(e, final, skip)
		detail := fmt.Sprintf("%s: %d wrong cells", desc, wrong)
		if wrong > 0 && skip > 0 {
			detail += fmt.Sprintf(", the nearest %d cells from the hole", nearestWrong(e, final, skip))
		}
		return CheckResult{Name: name, Passed: wrong == 0, Wrong: wrong, Frames: frames, Detail: detail}
	}}
}

// The paper's checks of a pattern-growing model. generaliseCheck: on a
// size x size grid for steps steps it forms the pattern.
func generaliseCheck(size, steps int) Check {
	return damageCheck("generalise", fmt.Sprintf("%dx%d grid, %d steps", size, size, steps), size, steps, 0, 0, 0)
}

// faultCheck: with the centre hole x hole square zeroed after every step,
// the rest stays right. It counts the wrong cells outside the hole after
// steps steps, beside the paper's own run (PaperFaultWrong for the
// checkerboard), and passes at or below allow; it goes on to twice as many
// steps and reports the count there too, where a rule that finishes the
// pattern has none left.
func faultCheck(size, steps, hole, allow int) Check {
	name := "fault-tolerance"
	desc := fmt.Sprintf("%dx%d, centre %dx%d zeroed every step (cells outside it)", size, size, hole, hole)
	return Check{Name: name, Description: desc, Side: size, Steps: 2 * steps, Frames: keptFrames(2*steps) + 1, Run: func(e *Experiment, m *dlca.Model) CheckResult {
		frames, at := checkRollout(e, m, size, 2*steps, hole, 2*steps, steps)
		wrong := WrongCells(e, at[steps], hole)
		later := WrongCells(e, &frames[len(frames)-1], hole)
		detail := fmt.Sprintf("%s: %d wrong cells after %d steps (allowed %d", desc, wrong, steps, allow)
		if allow > 0 {
			detail += ", the paper's run"
		}
		detail += ")"
		if wrong > 0 {
			detail += fmt.Sprintf(", the nearest %d cells from the hole", nearestWrong(e, at[steps], hole))
		}
		detail += fmt.Sprintf(faultLaterFormat, later, 2*steps)
		return CheckResult{Name: name, Passed: wrong <= allow, Wrong: wrong, Frames: frames, Detail: detail}
	}}
}

// faultLaterFormat ends the Detail of a fault-tolerance result: the wrong
// cells after twice the steps, and that number of steps.
const faultLaterFormat = "; %d after %d steps (0 expected)"

// FaultLater reads from a fault-tolerance result's Detail the wrong cells
// outside the hole after twice the check's steps, and that number of steps
// (run.json records them there only). ok is false for any other result and
// for one from before the check went on (older run.json files).
func FaultLater(r CheckResult) (wrong, steps int, ok bool) {
	i := strings.LastIndex(r.Detail, "; ")
	if r.Name != "fault-tolerance" || i < 0 {
		return 0, 0, false
	}
	_, err := fmt.Sscanf(r.Detail[i:], faultLaterFormat, &wrong, &steps)
	return wrong, steps, err == nil
}

// healCheck: with the centre hole x hole square zeroed during the first
// healAfter steps only, it heals completely.
func healCheck(size, steps, hole, healAfter int) Check {
	desc := fmt.Sprintf("%dx%d, %d steps, centre %dx%d zeroed during the first %d", size, size, steps, hole, hole, healAfter)
	return damageCheck("self-healing", desc, size, steps, hole, healAfter, 0)
}

// LargestCheck returns the check of e that needs the most memory (they
// run one after another) and its estimate (memlimit.WithOverhead of
// CheckMemory), for a model of e's channels; ok is false when e has no
// checks.
func (e *Experiment) LargestCheck() (c Check, need int64, ok bool) {
	for _, k := range e.Checks {
		if n := memlimit.WithOverhead(CheckMemory(k, e.Model.Channels, len(e.LossChannels))); !ok || n > need {
			c, need, ok = k, n, true
		}
	}
	return c, need, ok
}

// RunChecks runs every check of e on m.
func RunChecks(e *Experiment, m *dlca.Model) []CheckResult {
	var out []CheckResult
	for _, c := range e.Checks {
		out = append(out, c.Run(e, m))
	}
	return out
}
