package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
)

// confidenceBins are the lower edges of the columns of dlca gap's table of
// gate confidences, highest first.
var confidenceBins = []float64{0.99, 0.9, 0.5, 0}

// runGap shows where a model's circuit parts from its soft model: how sure
// each layer's gates are of their op, and, step by step on a training batch,
// how many state bits of the two rollouts differ. A soft loss near 0 with a
// large hard loss (the relaxation gap) shows up here as unsure gates and a
// step from which the rollouts drift apart.
func runGap(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dlca gap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	model := fs.String("model", "", "model file (required)")
	name := fs.String("experiment", "", "experiment whose training batch, steps and loss to use, built-in or an experiment file (default: the experiment the model records, else checkerboard)")
	seed := fs.Uint64("seed", 23, "seed of the batch (and of the fire masks of an asynchronous experiment)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if *model == "" {
		return fmt.Errorf("-model is required: the model file to inspect")
	}
	e, m, err := loadModel(*model, *name)
	if err != nil {
		return err
	}
	writeConfidences(stdout, m)
	fmt.Fprintln(stdout)
	return writeDrift(ctx, stdout, e, m, *seed)
}

// writeConfidences prints, per layer and in all, how many gates give their
// most probable op a probability in each of confidenceBins' ranges.
func writeConfidences(w io.Writer, m *dlca.Model) {
	fmt.Fprintln(w, "gates by the probability of their most probable op:")
	fmt.Fprintf(w, "%-16s %7s %7s %9s %8s %6s\n", "layer", "gates", ">=0.99", "0.9-0.99", "0.5-0.9", "<0.5")
	var total [5]int
	for _, l := range m.Layers() {
		var row [5]int
		for _, c := range l.Confidences() {
			row[0]++
			for i, lo := range confidenceBins {
				if c >= lo {
					row[1+i]++
					break
				}
			}
		}
		for i := range row {
			total[i] += row[i]
		}
		fmt.Fprintf(w, "%-16s %7d %7d %9d %8d %6d\n", l.Name, row[0], row[1], row[2], row[3], row[4])
	}
	fmt.Fprintf(w, "%-16s %7d %7d %9d %8d %6d\n", "all", total[0], total[1], total[2], total[3], total[4])
}

// writeDrift runs the soft model and the circuit side by side on the first
// training batch of a run of e with the given seed (the same fire masks when
// e is asynchronous) and prints, after every step, the state bits where they
// differ (a soft value counts as the bit it is nearer), the soft values far
// from both bits, and each rollout's loss on e's loss channels. It stops
// with errInterrupted when ctx is done.
func writeDrift(ctx context.Context, w io.Writer, e *experiments.Experiment, m *dlca.Model, seed uint64) error {
	// NOTE: the batch and fire seed are drawn as bptt.Train draws them, so
	// with the run's seed this is the batch of its first iteration.
	rng := rand.New(rand.NewPCG(seed, 1))
	b := e.Source()(rng)
	fireSeed := rng.Uint64()
	c := m.Config.Channels
	n := len(b.Init) / (b.Height * b.Width * c)
	soft := autograd.Cast(autograd.New(b.Init, n, b.Height, b.Width, c), m.DType()).NoGrad()
	bits := dlca.BitsOf(soft)
	circuit := m.Circuit()
	var masks *dlca.FireMasks
	if e.Async {
		masks = m.Config.FireMasks(fireSeed)
	}
	fmt.Fprintf(w, "soft model and circuit from the same %d-image training batch (seed %d), %dx%d, %d channels:\n", n, seed, b.Height, b.Width, c)
	fmt.Fprintf(w, "%4s %14s %22s %10s %10s\n", "step", "bits differ", "soft in (0.1, 0.9)", "soft loss", "hard loss")
	for step := 1; step <= e.Steps; step++ {
		if err := interrupted(ctx); err != nil {
			return err
		}
		var fire []bool
		if masks != nil {
			fire = masks.Next(bits.Cells())
		}
		soft = m.Step(soft, fire)
		next := dlca.NewBits(n, b.Height, b.Width, c)
		circuit.Step(next, bits, fire)
		bits = next
		differ, unsure := 0, 0
		var softLoss, hardLoss float64
		for i := range soft.Len() {
			v := soft.At(i)
			if v > 0.1 && v < 0.9 {
				unsure++
			}
			cell, ch := i/c, i%c
			bit := bits.Cell(cell, ch)
			if (v >= 0.5) != (bit == 1) {
				differ++
			}
			for j, lc := range e.LossChannels {
				if lc == ch {
					t := float64(b.Target[cell*len(e.LossChannels)+j])
					softLoss += (v - t) * (v - t)
					hardLoss += (float64(bit) - t) * (float64(bit) - t)
				}
			}
		}
		fmt.Fprintf(w, "%4d %14d %22d %10.3f %10.0f\n", step, differ, unsure, softLoss, hardLoss)
	}
	return nil
}
