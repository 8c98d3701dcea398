package experiments

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// checkKind is a check an experiment file can ask for: the numbers of
// CheckSpec it takes, the target it needs ("" for any) and how to make it.
type checkKind struct {
	params []string
	target string
	make   func(s CheckSpec) Check
}

// checkKinds are the kinds of [[checks]], by name (docs/config.md).
var checkKinds = map[string]checkKind{
	"generalise":      {[]string{"size", "steps"}, "", func(s CheckSpec) Check { return generaliseCheck(s.Size, s.Steps) }},
	"fault-tolerance": {[]string{"size", "steps", "hole"}, "", func(s CheckSpec) Check { return faultCheck(s.Size, s.Steps, s.Hole) }},
	"self-healing": {[]string{"size", "steps", "hole", "heal_after"}, "", func(s CheckSpec) Check {
		return healCheck(s.Size, s.Steps, s.Hole, s.HealAfter)
	}},
	"async-run":          {[]string{"size", "steps"}, "", func(s CheckSpec) Check { return AsyncCheck(s.Size, s.Steps) }},
	"robustness":         {[]string{"size", "steps", "square"}, "", func(s CheckSpec) Check { return robustnessCheck(s.Size, s.Steps, s.Square) }},
	"grow":               {[]string{"size", "steps"}, "", func(s CheckSpec) Check { return growCheck(s.Size, s.Steps) }},
	"life-grid":          {[]string{"size", "steps"}, "gameoflife", func(s CheckSpec) Check { return lifeGridCheck(s.Size, s.Steps) }},
	"all-neighbourhoods": {nil, "gameoflife", func(CheckSpec) Check { return allNeighbourhoodsCheck }},
}

// params returns the numbers of s by key.
func (s CheckSpec) params() map[string]int {
	return map[string]int{"size": s.Size, "steps": s.Steps, "hole": s.Hole, "heal_after": s.HealAfter, "square": s.Square}
}

// checks returns the checks c asks for; target is the size of the
// target's picture (zero for a pattern that fills any grid).
func (c *Config) checks(p *problems, target [2]int) []Check {
	var out []Check
	for i, s := range c.Checks {
		key := fmt.Sprintf("checks[%d]", i)
		kind, ok := checkKinds[s.Kind]
		if !ok {
			p.add(key+".kind", "%q: use one of %s", s.Kind, strings.Join(slices.Sorted(maps.Keys(checkKinds)), ", "))
			continue
		}
		bad := false
		params := s.params()
		for _, name := range []string{"size", "steps", "hole", "heal_after", "square"} {
			v := params[name]
			switch {
			case slices.Contains(kind.params, name) && v < 1:
				p.add(key+"."+name, "%d: check %s needs %s of at least 1", v, s.Kind, name)
				bad = true
			case !slices.Contains(kind.params, name) && v != 0:
				p.add(key+"."+name, "check %s takes no %s (it takes %s)", s.Kind, name, orNone(kind.params))
				bad = true
			}
		}
		if kind.target != "" && c.Target.Kind != kind.target {
			p.add(key+".kind", "check %s needs target kind %q, not %q", s.Kind, kind.target, c.Target.Kind)
			bad = true
		}
		if s.Size > 0 && (s.Size < target[0] || s.Size < target[1]) {
			p.add(key+".size", "%d: smaller than the %dx%d target", s.Size, target[0], target[1])
			bad = true
		}
		if s.Hole >= s.Size && s.Hole > 0 {
			p.add(key+".hole", "%d: the hole must be smaller than the grid (size %d)", s.Hole, s.Size)
			bad = true
		}
		if s.EitherPhase && kind.target == "gameoflife" {
			p.add(key+".either_phase", "check %s compares with Life, which has one phase", s.Kind)
			bad = true
		}
		if bad {
			continue
		}
		check := kind.make(s)
		if s.EitherPhase {
			check = eitherPhase(check)[0]
		}
		out = append(out, check)
	}
	return out
}

func orNone(params []string) string {
	if len(params) == 0 {
		return "none"
	}
	return strings.Join(params, ", ")
}
