// Command fmnist trains a classifier on Fashion-MNIST with the autograd
// package and reports the test accuracy and the time per epoch.
//
//	go run ./cmd/fmnist -model cnn -epochs 3
//
// The data set is read from -data (default: where Debian's
// dataset-fashion-mnist package installs it).
package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/dlca/dlca/internal/fmnist"
	"github.com/dlca/dlca/internal/idx"
	"github.com/dlca/dlca/internal/runctl"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("fmnist", flag.ContinueOnError)
	model := fs.String("model", "mlp", "model to train: mlp (784-128-10) or cnn (two conv layers)")
	epochs := fs.Int("epochs", 4, "training epochs")
	batch := fs.Int("batch", 128, "minibatch size")
	lr := fs.Float64("lr", 2e-3, "Adam's peak learning rate (cosine-annealed to 0)")
	seed := fs.Uint64("seed", 1, "random seed (initialisation and shuffling)")
	data := fs.String("data", idx.DefaultFashionMNISTDir, "directory holding the Fashion-MNIST IDX files")
	if err := runctl.ParseFlags(fs, args, os.Stdout); errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (all options are flags; see -help)", fs.Arg(0))
	}
	if *epochs <= 0 || *batch <= 0 || !(*lr > 0) {
		return errors.New("-epochs, -batch and -lr must be positive")
	}
	m, err := fmnist.NewModel(*model, rand.New(rand.NewPCG(*seed, 0)))
	if err != nil {
		return err
	}
	train, err := idx.LoadMNIST(*data, true)
	if err != nil {
		return err
	}
	test, err := idx.LoadMNIST(*data, false)
	if err != nil {
		return err
	}
	fmt.Printf("model %s, %d epochs, batch %d, lr %g, seed %d\n", *model, *epochs, *batch, *lr, *seed)
	start, last := time.Now(), time.Now()
	err = fmnist.Train(m, train, fmnist.Config{Epochs: *epochs, Batch: *batch, LR: *lr, Seed: *seed}, func(epoch int, loss float64) {
		fmt.Printf("epoch %d: training loss %.4f, %.1f s\n", epoch, loss, time.Since(last).Seconds())
		last = time.Now()
	})
	if err != nil {
		return err
	}
	trainTime := time.Since(start)
	fmt.Printf("test accuracy %.2f%% (training took %.1f s, %.1f s per epoch)\n",
		100*fmnist.Accuracy(m, test), trainTime.Seconds(), trainTime.Seconds()/float64(*epochs))
	return nil
}
