package main

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color/palette"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/viewer/painter"
)

// shownState is one state of a rollout as its pictures show it.
type shownState struct {
	step  int           // 0 for the initial state
	frame painter.Frame // the channels drawn
	bits  *dlca.Bits    // the hard state, compared with the target; nil in a soft rollout
}

// frameFunc receives a rollout's states in turn, the initial one first.
type frameFunc func(shownState) error

// evalRollout runs eval's rollout from init: the circuit on bits, or the
// soft model when soft. When frame is not nil it is called with every state
// (its step, a frame holding the channels o draws and, for the circuit, the
// bits). Only the current state is kept,
// so memory does not grow with the steps. The first error of frame stops
// the frames and is returned; the rollout stops with errInterrupted as soon
// as ctx is done. When record is not nil it is given every whole state
// (-states), and its first error stops the rollout the same way.
func evalRollout(ctx context.Context, m *dlca.Model, init *autograd.Tensor, steps int, soft, async bool, seed uint64, o painter.Options, frame frameFunc, record *statesWriter) (*dlca.Bits, error) {
	var err error
	stop := func() bool { return ctx.Err() != nil || err != nil }
	var final *dlca.Bits
	if soft {
		show := func(t int, s *autograd.Tensor) {
			if record != nil && err == nil {
				err = record.soft(s)
			}
			if frame != nil && err == nil {
				sh := s.Shape()
				err = frame(shownState{step: t, frame: painter.Frame{H: sh[1], W: sh[2], C: sh[3], Cells: s.Data32()}})
			}
		}
		show(0, init)
		final = dlca.BitsOf(m.Rollout(init.NoGrad(), steps, dlca.RolloutOptions{Async: async, Seed: seed, Stop: stop,
			After: func(t int, s *autograd.Tensor) *autograd.Tensor { show(t, s); return s }}))
	} else {
		show := func(t int, s *dlca.Bits) {
			if record != nil && err == nil {
				err = record.hard(s)
			}
			if frame != nil && err == nil {
				err = frame(shownState{step: t, frame: frameOf(s, 0, drawnChannels(o, s.Channels)), bits: s})
			}
		}
		bits := dlca.BitsOf(init)
		show(0, bits)
		final = m.Circuit().Rollout(bits, steps, dlca.HardOptions{Async: async, Seed: seed, Stop: stop,
			After: func(t int, s *dlca.Bits) { show(t, s) }})
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
// returns. Each frame is captioned with its step and, for a hard state of
// an experiment with a fixed target, the count of wrong cells, which are
// framed in colour (painter.PaintNoted). When finalPNG is not "", the last
// frame is also written there as a PNG. A hard rollout's colours are known
// in advance; a soft one in RGB is rolled out twice, first to collect its
// colours (the Plan 9 palette if more than 256), as painter.WriteGIF
// chooses them.
func saveRolloutGIF(path, finalPNG string, e *experiments.Experiment, o painter.Options, soft bool, roll func(frameFunc) (*dlca.Bits, error)) (*dlca.Bits, error) {
	paint, last := notedPainter(e, o)
	pal := painter.NotedPalette(o, !soft)
	if pal == nil {
		var cols painter.Colours
		if _, err := roll(func(s shownState) error { cols.Add(paint(s)); return nil }); err != nil {
			return nil, err
		}
		if pal = cols.Palette(); pal == nil {
			pal = palette.Plan9
		}
	}
	var final *dlca.Bits
	err := painter.SaveGIFStream(path, pal, 10, func(add func(image.Image) error) error {
		var err error
		final, err = roll(func(s shownState) error { return add(paint(s)) })
		return err
	})
	if err != nil {
		if errors.Is(err, errInterrupted) {
			return nil, errInterrupted // not a write error: nothing was written
		}
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	if finalPNG != "" && last() != nil {
		if err := painter.SavePNG(finalPNG, last()); err != nil {
			return nil, fmt.Errorf("cannot write %s: %w", finalPNG, err)
		}
	}
	return final, nil
}

// notedPainter returns paint, which draws a shown state with its caption and
// wrong cells (painter.PaintNoted) into one picture that it repaints for
// every state, and last, which returns that picture (nil before the first).
func notedPainter(e *experiments.Experiment, o painter.Options) (paint func(shownState) *image.RGBA, last func() *image.RGBA) {
	var dst *image.RGBA
	paint = func(s shownState) *image.RGBA {
		if dst == nil {
			sz := o.NotedSize(s.frame.H, s.frame.W)
			dst = image.NewRGBA(image.Rect(0, 0, sz.X, sz.Y))
		}
		n := painter.Notes{Step: s.step}
		if s.bits != nil {
			n.Wrong = experiments.WrongMask(e, s.bits)
		}
		painter.PaintNoted(dst, s.frame, o, n)
		return dst
	}
	return paint, func() *image.RGBA { return dst }
}

// saveFinalPNG runs roll and writes its last state, painted as a GIF frame
// would be, as a PNG at path (dlca eval -png without -gif).
func saveFinalPNG(path string, e *experiments.Experiment, o painter.Options, roll func(frameFunc) (*dlca.Bits, error)) (*dlca.Bits, error) {
	paint, last := notedPainter(e, o)
	final, err := roll(func(s shownState) error { paint(s); return nil })
	if err != nil {
		return nil, err
	}
	if err := painter.SavePNG(path, last()); err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", path, err)
	}
	return final, nil
}
