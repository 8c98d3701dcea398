package main

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color/palette"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/viewer/painter"
)

// frameFunc receives a rollout's states in turn, the initial one first.
type frameFunc func(painter.Frame) error

// evalRollout runs eval's rollout from init: the circuit on bits, or the
// soft model when soft. When frame is not nil it is called with every state
// as a frame holding the channels o draws. Only the current state is kept,
// so memory does not grow with the steps. The first error of frame stops
// the frames and is returned; the rollout stops with errInterrupted as soon
// as ctx is done. When record is not nil it is given every whole state
// (-states), and its first error stops the rollout the same way.
func evalRollout(ctx context.Context, m *dlca.Model, init *autograd.Tensor, steps int, soft, async bool, seed uint64, o painter.Options, frame frameFunc, record *statesWriter) (*dlca.Bits, error) {
	var err error
	stop := func() bool { return ctx.Err() != nil || err != nil }
	var final *dlca.Bits
	if soft {
		show := func(s *autograd.Tensor) {
			if record != nil && err == nil {
				err = record.soft(s)
			}
			if frame != nil && err == nil {
				sh := s.Shape()
				err = frame(painter.Frame{H: sh[1], W: sh[2], C: sh[3], Cells: s.Data32()})
			}
		}
		show(init)
		final = dlca.BitsOf(m.Rollout(init.NoGrad(), steps, dlca.RolloutOptions{Async: async, Seed: seed, Stop: stop,
			After: func(_ int, s *autograd.Tensor) *autograd.Tensor { show(s); return s }}))
	} else {
		show := func(s *dlca.Bits) {
			if record != nil && err == nil {
				err = record.hard(s)
			}
			if frame != nil && err == nil {
				err = frame(frameOf(s, 0, drawnChannels(o, s.Channels)))
			}
		}
		bits := dlca.BitsOf(init)
		show(bits)
		final = m.Circuit().Rollout(bits, steps, dlca.HardOptions{Async: async, Seed: seed, Stop: stop,
			After: func(_ int, s *dlca.Bits) { show(s) }})
	}
	if ierr := interrupted(ctx); ierr != nil {
		return nil, ierr
	}
	return final, err
}

// drawnChannels returns how many leading channels of a c-channel state o
// draws: channels 0-2 in RGB, up to o.Channel otherwise.
func drawnChannels(o painter.Options, c int) int {
	if o.RGB {
		return min(c, 3)
	}
	return min(c, o.Channel+1)
}

// saveRolloutGIF writes the frames that roll passes to its frame function
// as an animated GIF at path, one at a time, and returns what roll
// returns. A hard rollout's colours are known in advance; a soft one in
// RGB is rolled out twice, first to collect its colours (the Plan 9
// palette if more than 256), as painter.WriteGIF chooses them.
func saveRolloutGIF(path string, o painter.Options, soft bool, roll func(frameFunc) (*dlca.Bits, error)) (*dlca.Bits, error) {
	var dst *image.RGBA // one picture, repainted for every frame
	paint := func(f painter.Frame) *image.RGBA {
		if dst == nil {
			sz := o.Size(f.H, f.W)
			dst = image.NewRGBA(image.Rect(0, 0, sz.X, sz.Y))
		}
		painter.PaintAt(dst, image.Point{}, f, o)
		return dst
	}
	pal := painter.KnownPalette(o, !soft)
	if pal == nil {
		var cols painter.Colours
		if _, err := roll(func(f painter.Frame) error { cols.Add(paint(f)); return nil }); err != nil {
			return nil, err
		}
		if pal = cols.Palette(); pal == nil {
			pal = palette.Plan9
		}
	}
	var final *dlca.Bits
	err := painter.SaveGIFStream(path, pal, 10, func(add func(image.Image) error) error {
		var err error
		final, err = roll(func(f painter.Frame) error { return add(paint(f)) })
		return err
	})
	if err != nil {
		if errors.Is(err, errInterrupted) {
			return nil, errInterrupted // not a write error: nothing was written
		}
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	return final, nil
}
