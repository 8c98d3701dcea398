package main

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/gpu"
	"github.com/dlca/dlca/gputrain"
)

// graphEngine opens an autograd device and returns the engine that trains
// through its captured step (package gputrain), and a function closing the
// device after the engine.
func graphEngine(setup bptt.Setup, stdout io.Writer) (bptt.Engine, func(), error) {
	dev, err := gpu.OpenAutograd()
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(stdout, "graph device: %s\n", dev.Device())
	if dev.Device().IsSoftware() {
		fmt.Fprintln(stdout, "graph device is a software (CPU) adapter: its timings say nothing about a GPU")
	}
	eng, err := gputrain.New(dev, setup, gputrain.Options{})
	if err != nil {
		dev.Close()
		return nil, nil, err
	}
	return eng, dev.Close, nil
}

// printGraphCounts prints what the last iteration of a graph engine
// dispatched, submitted, read back and uploaded (a replay of its captured
// step); other engines print nothing here.
func printGraphCounts(eng bptt.Engine, stdout io.Writer) {
	g, ok := eng.(*gputrain.Engine)
	if !ok {
		return
	}
	c := g.LastCounts()
	fmt.Fprintf(stdout, "graph engine: %d kernel dispatches in %d submissions, %d read-backs, %d uploads of %d bytes per iteration (captured step replayed)\n",
		c.Dispatches, c.Submissions, c.ReadBacks, c.Writes, c.Bytes)
	if len(c.ByShader) > 0 {
		fmt.Fprintf(stdout, "graph engine dispatches by kernel:")
		for _, name := range slices.Sorted(maps.Keys(c.ByShader)) {
			fmt.Fprintf(stdout, " %s %d;", name, c.ByShader[name])
		}
		fmt.Fprintln(stdout)
	}
}
