package gates_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/gates"
)

// A layer of one gate over two inputs, trained (here: set) to XOR, run soft
// on two rows, then hard on 64-sample words.
func ExampleLayer() {
	w, err := gates.NewWiring(2, []int{0}, []int{1})
	if err != nil {
		panic(err)
	}
	l := gates.NewLayer("xor", 2, w, 1, gates.Init{}, autograd.Float64, nil)
	l.Logits.SetAt(int(gates.Xor), 10) // logits [groups 1, gates 1, 16]

	x := autograd.New64([]float64{0, 1, 0.5, 0.5}, 2, 2) // rows (a, b) = (0, 1), (0.5, 0.5)
	y := l.Forward(x)
	fmt.Printf("soft %.4f\n", y.Data64())

	ops := l.HardOps()
	fmt.Println("hard", ops, "active", l.ActiveGates())

	out := make([]uint64, 1)
	gates.EvalWords(out, []uint64{0b0011, 0b0101}, ops, w) // the four corners in bits 3..0
	fmt.Printf("truth table %04b\n", out[0]&0xf)
	// Output:
	// soft [0.9996 0.5000]
	// hard [XOR] active 1
	// truth table 0110
}

// The 'unique' wiring reads every input and repeats no pair; the same seed
// gives the same wiring.
func ExampleUniqueWiring() {
	w, err := gates.UniqueWiring(4, 3, rand.New(rand.NewPCG(23, 0)))
	if err != nil {
		panic(err)
	}
	for k := range w.Len() {
		fmt.Printf("gate %d reads (%d, %d)\n", k, w.A[k], w.B[k])
	}
	_, err = gates.UniqueWiring(9, 4, nil)
	fmt.Println(err)
	// Output:
	// gate 0 reads (1, 2)
	// gate 1 reads (2, 3)
	// gate 2 reads (0, 1)
	// gates: unique wiring of 4 gates over 9 inputs: needs at least ceil(in/2) = 5 gates so that every input is read
}
