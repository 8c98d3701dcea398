package main

import (
	"fmt"

	"github.com/dlca/dlca/internal/memlimit"
)

// activations is the number of float32 values one image's forward pass
// holds in each model, layer by layer: the MLP's 784 inputs, 128 hidden
// values before and after the ReLU and 10 logits; the CNN's input, each
// convolution's unfolded input (3x3 patches: 9 x 784 and 72 x 196
// values), output and ReLU, each pooling's output (8x14x14 and 16x7x7),
// the 64 hidden values twice and 10 logits.
var activations = map[string]int64{
	"mlp": 784 + 2*128 + 10,
	"cnn": 784 + 9*784 + 2*8*28*28 + 8*14*14 + 72*14*14 + 2*16*14*14 + 16*7*7 + 2*64 + 10,
}

// imageBytes is what the training set costs an image in memory: 784
// pixels as float32 and a label.
const imageBytes = 784*4 + 8

// trainingMemory estimates, on the high side, what training model on
// images images in batches of batch needs (before memlimit.WithOverhead): the
// data set, and per image of a batch its activations twice (values and
// their gradients). Measured: -model cnn -batch 2000 -subset 4000 peaked
// at 544 MB resident, this says 770 MB.
func trainingMemory(model string, batch, images int) int64 {
	per := activations[model] * 4 * 2
	return int64(min(float64(batch)*float64(per)+float64(images)*imageBytes, 1<<62))
}

// checkMemory refuses, before the data is loaded, a training whose
// estimated memory exceeds maxMemory or the memory this process may take
// (memlimit.Check), naming a batch that fits.
func checkMemory(model string, batch, images int, maxMemory string) error {
	return memlimit.Check(maxMemory, func(limit int64, source string) error { return refuseMemory(model, batch, images, limit, source) })
}

// refuseMemory is checkMemory's comparison with limit, which comes from source.
func refuseMemory(model string, batch, images int, limit int64, source string) error {
	need := memlimit.WithOverhead(trainingMemory(model, batch, images))
	if need <= limit {
		return nil
	}
	fits := batch
	for fits > 0 && memlimit.WithOverhead(trainingMemory(model, fits, images)) > limit {
		fits /= 2
	}
	hint := "free some memory, or raise -max-memory if the limit is wrong"
	if fits > 0 {
		hint = fmt.Sprintf("train with a smaller -batch (%d needs about %s), or %s", fits, memlimit.FormatBytes(memlimit.WithOverhead(trainingMemory(model, fits, images))), hint)
	}
	return fmt.Errorf("mnist: -model %s -batch %d needs about %s but %s is %s: %s", model, batch, memlimit.FormatBytes(need), source, memlimit.FormatBytes(limit), hint)
}
