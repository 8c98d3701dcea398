package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/dlca/dlca/cmd/internal/mnist"
	"github.com/dlca/dlca/cmd/mnist/internal/mnistpage"
	"github.com/dlca/dlca/internal/gowasm"
	"github.com/dlca/dlca/internal/safefile"
)

// The MNIST page's training, unless the flags say otherwise: 5 epochs of
// batch 100 over 1,000 images (50 steps), which reach about 87% on
// held-out digits (mnist -subset 1000 -epochs 5 -batch 100 -lr 3e-3: 86.6
// to 87.0% on the whole test set, seeds 1 to 4) in a few seconds even on
// a software GPU (docs/web.md).
const (
	pageSubset = 1000
	pageEpochs = 5
	pageBatch  = 100
	pageLR     = 3e-3
)

// exportPage writes the MNIST page (mnistpage) to out: the first subset
// training images (pageSubset when 0) and the first heldOut test images of
// ds, the training's settings (the page's defaults for the flags not set),
// and the trainer, built first (which needs the Go toolchain and the dlca
// sources: see internal/gowasm).
func exportPage(fs *flag.FlagSet, out string, ds mnist.Dataset, data, model string, subset, heldOut, epochs, batch int, lr float64, seed uint64) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, name := range []string{"device", "max-memory", "eager", "loss-every"} {
		if set[name] {
			return fmt.Errorf("mnist: -%s has no meaning with -export-html: the page trains in the browser, on its WebGPU when it offers one (a menu switches to the CPU); leave -%s out", name, name)
		}
	}
	if !set["epochs"] {
		epochs = pageEpochs
	}
	if !set["batch"] {
		batch = pageBatch
	}
	if !set["lr"] {
		lr = pageLR
	}
	if subset == 0 {
		subset = pageSubset
	}
	switch {
	case heldOut <= 0:
		return errors.New("mnist: -held-out must be positive: the page measures the model on that many test images")
	case seed >= 1<<53:
		return fmt.Errorf("mnist: -seed %d: the page holds seeds below 2^53 (JavaScript numbers)", seed)
	}
	train, test, err := ds.Load(data)
	if err != nil {
		return err
	}
	page := &mnistpage.Page{Dataset: ds, Train: train.Head(subset), Test: test.Head(heldOut), Model: model, Epochs: epochs, Batch: batch, LR: lr, Seed: seed}
	if err := page.Check(); err != nil { // before the build
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Println("building the WebAssembly trainer (GOOS=js GOARCH=wasm go build)...")
	wasm, wasmExec, err := gowasm.Build(ctx, mnistpage.TrainerPackage)
	if err != nil {
		return err
	}
	if err := safefile.Write(out, func(w io.Writer) error {
		return mnistpage.Write(w, page, &mnistpage.Trainer{Wasm: wasm, WasmExec: wasmExec})
	}); err != nil {
		return err
	}
	st, err := os.Stat(out)
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s (%.1f MB; the trainer %.1f MB of WebAssembly before compression): %s on %d training and %d held-out images of %s\n",
		out, float64(st.Size())/1e6, float64(len(wasm))/1e6, model, page.Train.Len(), page.Test.Len(), ds.Name)
	return nil
}
