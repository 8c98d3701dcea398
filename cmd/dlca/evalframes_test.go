package main

import (
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/internal/memlimit"
	"github.com/dlca/dlca/viewer/painter"
)

// untrainedModel saves a fresh model of experiment name and returns its
// path and the experiment.
func untrainedModel(t *testing.T, name string) (string, *experiments.Experiment, *dlca.Model) {
	t.Helper()
	e, err := experiments.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	m, err := dlca.New(e.Model, autograd.Float32)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "model.json")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	return path, e, m
}

func decodeGIF(t *testing.T, path string) *gif.GIF {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := gif.DecodeAll(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return g
}

// TestEvalGIFMatchesWholeAnimation: eval's streamed GIF decodes to the
// painter's pictures of every state, recorded separately, below a caption
// strip that changes from frame to frame (the step number): hard and soft,
// grey and RGB (a soft RGB rollout takes the two-pass palette). In a hard
// rollout the cells whose loss channels differ from the target, computed
// here from the experiment's target, are framed in painter.WrongColour
// and their centres keep their colour; every other cell is exactly the
// painter's.
func TestEvalGIFMatchesWholeAnimation(t *testing.T) {
	for _, tc := range []struct {
		experiment string
		soft       bool
	}{{"checkerboard-small", false}, {"checkerboard-small", true}, {"colour-g", false}, {"colour-g", true}} {
		t.Run(fmt.Sprintf("%s/soft=%v", tc.experiment, tc.soft), func(t *testing.T) {
			path, e, m := untrainedModel(t, tc.experiment)
			const size, steps, seed = 12, 6, 3
			out := filepath.Join(t.TempDir(), "eval.gif")
			args := []string{"eval", "-experiment", tc.experiment, "-model", path, "-size", fmt.Sprint(size), "-steps", fmt.Sprint(steps), "-seed", fmt.Sprint(seed), "-gif", out}
			if tc.soft {
				args = append(args, "-soft")
			}
			if code, _, errs := runCmd(args...); code != 0 {
				t.Fatalf("eval: exit %d: %s", code, errs)
			}
			// The states, recorded whole.
			c := m.Config.Channels
			init := autograd.New(e.Init(rand.New(rand.NewPCG(seed, 0)), size, size, c), 1, size, size, c)
			var frames []painter.Frame
			if tc.soft {
				record := func(s *autograd.Tensor) {
					f := painter.NewFrame(size, size, c)
					copy(f.Cells, s.Data32())
					frames = append(frames, f)
				}
				record(init)
				m.Rollout(init.NoGrad(), steps, dlca.RolloutOptions{Seed: seed, After: func(_ int, s *autograd.Tensor) *autograd.Tensor { record(s); return s }})
			} else {
				b := dlca.BitsOf(init)
				frames = append(frames, frameOf(b, 0, c))
				m.Circuit().Rollout(b, steps, dlca.HardOptions{Seed: seed, After: func(_ int, s *dlca.Bits) { frames = append(frames, frameOf(s, 0, c)) }})
			}
			scale := 256 / size
			target := e.Target(size, size)
			got := decodeGIF(t, out)
			if len(got.Image) != steps+1 || got.LoopCount != 0 {
				t.Fatalf("%d frames, loop %d; want %d frames, looping", len(got.Image), got.LoopCount, steps+1)
			}
			marked := 0
			for i, f := range frames {
				img := got.Image[i]
				if want := image.Rect(0, 0, size*scale, size*scale+painter.CaptionHeight); img.Rect != want {
					t.Fatalf("frame %d: %v, want %v", i, img.Rect, want)
				}
				if i > 0 && sameRegion(img, got.Image[i-1], image.Rect(0, 0, img.Rect.Dx(), painter.CaptionHeight)) {
					t.Errorf("frames %d and %d have the same caption: the step number does not show", i-1, i)
				}
				want := painter.Paint(f, paintOptions(e, scale))
				for y := range size {
					for x := range size {
						wrong := false
						for j, k := range e.LossChannels {
							wrong = wrong || (f.At(y, x, k) > 0.5) != (target[(y*size+x)*len(e.LossChannels)+j] > 0.5)
						}
						wrong = wrong && !tc.soft
						cell := image.Rect(x*scale, y*scale, (x+1)*scale, (y+1)*scale)
						at := func(p image.Point) color.Color { return img.At(p.X, p.Y+painter.CaptionHeight) }
						if wrong {
							marked++
							if g := color.RGBAModel.Convert(at(cell.Min)); g != painter.WrongColour {
								t.Fatalf("frame %d: wrong cell (%d,%d) has corner %v, want %v", i, y, x, g, painter.WrongColour)
							}
							mid := cell.Min.Add(image.Pt(scale/2, scale/2))
							if g, w := color.RGBAModel.Convert(at(mid)), want.At(mid.X, mid.Y); g != w {
								t.Fatalf("frame %d: wrong cell (%d,%d) has centre %v, want its colour %v", i, y, x, g, w)
							}
							continue
						}
						for py := cell.Min.Y; py < cell.Max.Y; py++ {
							for px := cell.Min.X; px < cell.Max.X; px++ {
								if g, w := color.RGBAModel.Convert(at(image.Pt(px, py))), want.At(px, py); g != w {
									t.Fatalf("frame %d: cell (%d,%d) pixel (%d,%d) = %v, want %v", i, y, x, px, py, g, w)
								}
							}
						}
					}
				}
			}
			if !tc.soft && marked == 0 {
				t.Error("no cell of an untrained model's rollout was wrong: the test checks no mark")
			}
		})
	}
}

// sameRegion reports whether a and b have the same colours in r.
func sameRegion(a, b image.Image, r image.Rectangle) bool {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if color.RGBAModel.Convert(a.At(x, y)) != color.RGBAModel.Convert(b.At(x, y)) {
				return false
			}
		}
	}
	return true
}

// evalChildEnv makes the test binary run one dlca eval (its arguments
// separated by spaces) and print its peak resident set.
const evalChildEnv = "DLCA_TEST_EVAL_CHILD"

// TestEvalMemoryDoesNotGrowWithSteps runs eval on a 256x256 grid for 4 and
// for 100 steps, with and without a GIF, each in a fresh process: the peak
// resident set must not grow with the steps (keeping every state as a
// frame of floats, as eval did, would add 2 MiB a step here), and stays
// within the estimate.
func TestEvalMemoryDoesNotGrowWithSteps(t *testing.T) {
	if args := os.Getenv(evalChildEnv); args != "" {
		if code, _, errs := runCmd(strings.Fields(args)...); code != 0 {
			t.Fatalf("eval %s: exit %d: %s", args, code, errs)
		}
		b, _ := os.ReadFile("/proc/self/status")
		fmt.Println(regexp.MustCompile(`VmHWM:\s*\d+`).FindString(string(b)))
		return
	}
	if raceEnabled {
		t.Skip("the race detector multiplies memory use")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc/self/status here")
	}
	path, e, m := untrainedModel(t, "checkerboard")
	gifPath := filepath.Join(t.TempDir(), "e.gif")
	for _, gif := range []bool{false, true} {
		var peaks []int64
		for _, steps := range []int{4, 100} {
			args := fmt.Sprintf("eval -model %s -size 256 -steps %d", path, steps)
			if gif {
				args += " -gif " + gifPath
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestEvalMemoryDoesNotGrowWithSteps$")
			cmd.Env = append(os.Environ(), evalChildEnv+"="+args)
			out, err := cmd.CombinedOutput()
			m := regexp.MustCompile(`VmHWM:\s*(\d+)`).FindSubmatch(out)
			if err != nil || m == nil {
				t.Fatalf("%s: %v\n%s", args, err, out)
			}
			kb, _ := strconv.ParseInt(string(m[1]), 10, 64)
			peaks = append(peaks, kb<<10)
		}
		est := evalMemory(m, 256, 256, false, gif, paintOptions(e, 1))
		t.Logf("gif %v: peak resident set %s after 4 steps, %s after 100; estimate %s above the process's start",
			gif, memlimit.FormatBytes(peaks[0]), memlimit.FormatBytes(peaks[1]), memlimit.FormatBytes(est))
		if peaks[1]-peaks[0] > 8<<20 {
			t.Errorf("gif %v: the peak resident set grew by %s from 4 to 100 steps", gif, memlimit.FormatBytes(peaks[1]-peaks[0]))
		}
		if peaks[1] > est+32<<20 {
			t.Errorf("gif %v: peak %s, far above the estimate %s", gif, memlimit.FormatBytes(peaks[1]), memlimit.FormatBytes(est))
		}
	}
}

// TestEvalRefusesWhatDoesNotFit: a soft rollout on 4096x4096 cells (some
// 300 GiB of activations) is refused before anything is allocated, naming
// the largest -size that fits.
func TestEvalRefusesWhatDoesNotFit(t *testing.T) {
	// A fixed -max-memory: the available memory moves while other tests run.
	const limit = 3 << 30
	path, e, m := untrainedModel(t, "checkerboard")
	code, _, errs := runCmd("eval", "-model", path, "-size", "4096", "-soft", "-max-memory", "3GiB")
	mt := regexp.MustCompile(`use -size (\d+) or less`).FindStringSubmatch(errs)
	if code != 1 || !strings.Contains(errs, "-size 4096: the soft rollout needs about") || mt == nil || !strings.Contains(errs, "drop -soft") {
		t.Fatalf("exit %d, stderr %q; want a refusal naming a -size that fits", code, errs)
	}
	fits, _ := strconv.Atoi(mt[1])
	o := paintOptions(e, 1)
	if fits < 1 || evalMemory(m, fits, fits, true, false, o) > limit || evalMemory(m, fits+1, fits+1, true, false, o) <= limit {
		t.Errorf("suggested -size %d: not the largest size within %s", fits, memlimit.FormatBytes(limit))
	}
}
