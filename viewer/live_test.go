package viewer_test

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/dlca/dlca/viewer"
	"github.com/dlca/dlca/viewer/internal/toy"
)

func TestLiveTrainingAdvancesWhileFramesKeepComing(t *testing.T) {
	tr := &toy.Trainer{Iters: 1_000_000, Pause: time.Millisecond, H: 8, W: 8, C: 1, Saved: make(chan int, 1)}
	a := viewer.NewLive(context.Background(), tr, viewer.Options{Speed: 120, RolloutSteps: 4})
	a.Layout(640, 400)
	var iters []int
	frames := 0
	deadline := time.Now().Add(5 * time.Second)
	for len(iters) < 3 && time.Now().Before(deadline) {
		if err := a.Update(viewer.Tick{}); err != nil {
			t.Fatal(err)
		}
		a.Render()
		frames++
		p, err, ok := a.Training()
		if !ok || err != nil {
			t.Fatalf("Training() = %+v, %v, %v", p, err, ok)
		}
		if p.Iter > 0 && (len(iters) == 0 || p.Iter > iters[len(iters)-1]+10) {
			iters = append(iters, p.Iter)
			if want := 100 / float64(p.Iter); p.SoftLoss != want {
				t.Errorf("iteration %d soft loss %v, want %v", p.Iter, p.SoftLoss, want)
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	if len(iters) < 3 {
		t.Fatalf("iterations seen %v in %d frames: training did not advance", iters, frames)
	}
	if a.Frame().H != 8 {
		t.Errorf("showing a %dx%d grid, want a snapshot's 8x8", a.Frame().H, a.Frame().W)
	}
	a.Quit()
	var err error
	for err == nil && time.Now().Before(deadline.Add(5*time.Second)) {
		err = a.Update(viewer.Tick{})
		a.Render()
	}
	if err != viewer.ErrQuit {
		t.Fatalf("Update after Quit: %v, want ErrQuit", err)
	}
	select {
	case it := <-tr.Saved:
		if p, _, _ := a.Training(); it < p.Iter {
			t.Errorf("saved at iteration %d, shown %d", it, p.Iter)
		}
	default:
		t.Error("the trainer did not return before the App finished")
	}
}

func TestLiveSwitchesToNewerModelAfterRollout(t *testing.T) {
	tr := &toy.Trainer{Iters: 1_000_000, Pause: time.Millisecond, H: 6, W: 5, C: 1}
	a := viewer.NewLive(context.Background(), tr, viewer.Options{Speed: 60, RolloutSteps: 3})
	defer a.Wait()
	a.Layout(640, 400)
	resets := 0
	last := -1
	deadline := time.Now().Add(5 * time.Second)
	for resets < 3 && time.Now().Before(deadline) {
		if err := a.Update(viewer.Tick{}); err != nil {
			t.Fatal(err)
		}
		if a.Steps() < last {
			resets++
			if last < 3 {
				t.Errorf("switched model after %d steps, want at least 3", last)
			}
		}
		last = a.Steps()
		time.Sleep(2 * time.Millisecond)
	}
	if resets < 3 {
		t.Errorf("%d model switches in 5 s", resets)
	}
}

// scripted reports iterations whose time is known: iteration i ends at
// 3 s + i*100 ms (3 s of set-up), so the rate is exactly 10 per second.
type scripted struct{ iters int }

func (s scripted) Train(ctx context.Context, observe func(viewer.Progress)) error {
	for i := 1; i <= s.iters; i++ {
		observe(viewer.Progress{Iter: 40 + i, Iters: 100, SoftLoss: float64(i), HardLoss: float64(2 * i),
			Elapsed: 3*time.Second + time.Duration(i)*100*time.Millisecond})
	}
	return nil
}

func TestLiveRateAndResumedHistory(t *testing.T) {
	history := []viewer.Losses{{Soft: 0.5, Hard: 7}}
	a := viewer.NewLive(context.Background(), scripted{iters: 5}, viewer.Options{History: history})
	a.Wait()
	a.Update(viewer.Tick{})
	if got := a.IterationsPerSecond(); math.Abs(got-10) > 1e-9 {
		t.Errorf("rate %v, want 10 iterations/s", got)
	}
	soft, hard := a.LossHistory()
	if want := []float64{0.5, 1, 2, 3, 4, 5}; !reflect.DeepEqual(soft, want) {
		t.Errorf("soft losses %v, want %v", soft, want)
	}
	if want := []float64{7, 2, 4, 6, 8, 10}; !reflect.DeepEqual(hard, want) {
		t.Errorf("hard losses %v, want %v", hard, want)
	}
}
