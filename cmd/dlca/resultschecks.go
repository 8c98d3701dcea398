package main

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"

	"github.com/dlca/dlca/experiments"
)

// checkCell is how check result c of a run of experiment reads in the
// results table: its name, PASS or FAIL and what it measured. The
// fault-tolerance check gives its count after its steps and after twice as
// many; the robustness check its mean error over the second half and over
// all its steps (from its curve). Where the paper reports the check's
// figure for experiment (experiments.PaperCheck), the run's stands beside
// it with the difference.
func checkCell(experiment string, c experiments.CheckResult) string {
	paper := func(v float64) string { return besidePaper(experiment, c.Name, v) }
	what := fmt.Sprintf("%d wrong%s", c.Wrong, paper(float64(c.Wrong)))
	if later, steps, ok := experiments.FaultLater(c); ok {
		what = fmt.Sprintf("%d wrong after %d steps%s; %d after %d steps", c.Wrong, steps/2, paper(float64(c.Wrong)), later, steps)
	}
	if c.Name == "robustness" && len(c.Curve) > 0 {
		// The check's Wrong is the second half's mean (its final error
		// in older runs): the curve gives both means either way.
		half := stat.Mean(c.Curve[len(c.Curve)/2:], nil)
		what = fmt.Sprintf("mean error %.0f over the second half%s; %.0f over all %d steps",
			half, paper(half), stat.Mean(c.Curve, nil), len(c.Curve))
	}
	return fmt.Sprintf("%s %s (%s)", c.Name, passFail(c.Passed), what)
}

// besidePaper is what follows a run's figure v for check of experiment:
// the paper's figure and how far the run is from it ("vs the paper's 14: 4
// more"), or nothing when the paper reports none.
func besidePaper(experiment, check string, v float64) string {
	figure, about, ok := experiments.PaperCheck(experiment, check)
	if !ok {
		return ""
	}
	paper := fmt.Sprint(figure)
	if about {
		paper = "about " + paper
	}
	switch d := int(math.Round(v)) - figure; {
	case d > 0:
		return fmt.Sprintf(" vs the paper's %s: %d more", paper, d)
	case d < 0:
		return fmt.Sprintf(" vs the paper's %s: %d fewer", paper, -d)
	default:
		return fmt.Sprintf(", the paper's %s", paper)
	}
}
