package bptt_test

import (
	"context"
	"fmt"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
)

// Training an experiment on the CPU engine, with an observer that sees every
// iteration (the viewer subscribes the same way).
func ExampleTrain() {
	e, err := experiments.Get("checkerboard-small")
	if err != nil {
		panic(err)
	}
	e.Iterations = 3
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		panic(err)
	}
	setup := e.Setup(m)
	eng, err := bptt.NewCPU(setup)
	if err != nil {
		panic(err)
	}
	defer eng.Close()
	observe := func(ev bptt.Event) {
		fmt.Printf("iteration %d of %d: hard loss %v, %d active gates\n", ev.Iteration, ev.Iterations, ev.HardLoss, ev.ActiveGates)
	}
	metrics, trained, err := bptt.Train(context.Background(), eng, setup, e.Run(observe))
	fmt.Println(len(metrics), trained.NumGates(), err)
	// Output:
	// iteration 1 of 3: hard loss 63, 0 active gates
	// iteration 2 of 3: hard loss 67, 0 active gates
	// iteration 3 of 3: hard loss 61, 0 active gates
	// 3 856 <nil>
}
