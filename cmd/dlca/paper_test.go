package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dlca/dlca/bptt"
)

// TestResultsPaperRows: every paper experiment gets the paper's row, and a
// row saying so when no run of it was given; runs sit under their paper row.
func TestResultsPaperRows(t *testing.T) {
	var buf bytes.Buffer
	writeResults(&buf, []runRecord{{Experiment: "checkerboard-small", Seed: 1}, {Experiment: "gameoflife", Seed: 23, WiringSeed: 23, Iterations: 3000}}, nil)
	md := buf.String()
	for _, p := range paper {
		if !strings.Contains(md, "| **"+p.Experiment+" (paper)** |") {
			t.Errorf("no paper row for %s", p.Experiment)
		}
	}
	if !strings.Contains(md, "| lizard | | | | no saved run |") || strings.Contains(md, "| gameoflife | | | | no saved run |") {
		t.Errorf("rows of runs not done wrong:\n%s", md)
	}
	life := strings.Index(md, "| gameoflife | 23 | 23 | 3000 |")
	if life < strings.Index(md, "**gameoflife (paper)**") || life > strings.Index(md, "**checkerboard (paper)**") {
		t.Errorf("the gameoflife run is not under its paper row:\n%s", md)
	}
	if strings.Index(md, "| checkerboard-small | 1 |") < strings.Index(md, "**colour-g (paper)**") {
		t.Errorf("a run of an experiment outside the paper comes before the paper's:\n%s", md)
	}
}

func TestCopyPictures(t *testing.T) {
	run, img := t.TempDir(), t.TempDir()
	write := func(name string, n int) {
		if err := os.WriteFile(filepath.Join(run, name), make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("loss.png", 10)
	write("big.gif", maxPictureBytes+1)
	write("model.json", 10)
	links, err := copyPictures(run, img, filepath.Dir(img), "x")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"(big.gif: 250 KB, not copied)", "![loss](" + filepath.Base(img) + "/x-loss.png)"}
	if strings.Join(links, "\n") != strings.Join(want, "\n") {
		t.Fatalf("links %q, want %q", links, want)
	}
	if _, err := os.Stat(filepath.Join(img, "x-loss.png")); err != nil {
		t.Fatalf("loss.png not copied: %v", err)
	}
	if _, err := os.Stat(filepath.Join(img, "x-big.gif")); err == nil {
		t.Fatal("a picture over the limit was copied")
	}
}

func TestTrainingSeconds(t *testing.T) {
	its := []bptt.Metrics{{Time: 2 * time.Second}, {Time: 3 * time.Second}}
	if got := trainingSeconds(runRecord{WallSeconds: 1, Metrics: its}); got != 5 {
		t.Fatalf("resumed run: %v s, want the 5 s its iterations took", got)
	}
	if got := trainingSeconds(runRecord{WallSeconds: 7, Metrics: its}); got != 7 {
		t.Fatalf("whole run: %v s, want its wall time 7 s", got)
	}
}
