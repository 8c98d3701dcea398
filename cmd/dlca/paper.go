package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// paperFigures is what the paper reports for one experiment (PAPER.md
// section 3), shown beside this project's runs.
type paperFigures struct {
	Experiment  string
	Iterations  int
	HardLoss    string
	ActiveGates string
	Checks      string
}

// paper lists the paper's experiments in the order of its table.
var paper = []paperFigures{
	{"gameoflife", 3000, "0", "336", "128x128 periodic grid, 300 steps: equals Life"},
	{"checkerboard", 500, "not given", "22 (5 after pruning)", "64x64, 80 steps forms the pattern; centre 20x20 zeroed every step: the rest stays right; zeroed in the first 40 steps: heals; runs asynchronously"},
	{"checkerboard-async", 800, "not given", "not given", "56x56, 200 steps, damage in the first 100: heals; robustness: 64x64, 4000 steps, random 10x10 reset every step"},
	{"lizard", 3500, "not given", "577", "grows on a 40x40 grid"},
	{"colour-g", 3000, "not given", "927", "none"},
}

// paperFor returns the paper's figures for an experiment, if it is one of
// the paper's.
func paperFor(name string) (paperFigures, bool) {
	i := slices.IndexFunc(paper, func(p paperFigures) bool { return p.Experiment == name })
	if i < 0 {
		return paperFigures{}, false
	}
	return paper[i], true
}

// maxPictureBytes bounds the size of a picture copied next to RESULTS.md,
// so that the page stays small enough to commit.
const maxPictureBytes = 250 << 10

// pictureCopy is one picture that dlca results copies next to its page.
type pictureCopy struct{ src, dst string }

// copy copies the picture, atomically.
func (c pictureCopy) copy(ctx context.Context) error {
	b, err := os.ReadFile(c.src)
	if err != nil {
		return fmt.Errorf("cannot read %s: %w", c.src, err)
	}
	return writeOutput(ctx, c.dst, func(w io.Writer) error { _, err := w.Write(b); return err })
}

// planPictures lists the pictures of run directory dir (loss curve,
// animations, plots) that are at most maxPictureBytes, to be copied into
// imgDir named prefix-FILE, and returns the copies and markdown image links
// to them relative to mdDir, the directory of the results page. Larger
// pictures are named as skipped. prefix must be a plain name
// (safefile.CheckName).
func planPictures(dir, imgDir, mdDir, prefix string) ([]pictureCopy, []string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot list %s: %w", dir, err)
	}
	var copies []pictureCopy
	var links []string
	for _, en := range entries {
		ext := filepath.Ext(en.Name())
		if !en.Type().IsRegular() || (ext != ".png" && ext != ".gif") {
			continue
		}
		info, err := en.Info()
		if err != nil {
			return nil, nil, fmt.Errorf("cannot read %s: %w", filepath.Join(dir, en.Name()), err)
		}
		if info.Size() > maxPictureBytes {
			links = append(links, fmt.Sprintf("(%s: %d KB, not copied)", en.Name(), info.Size()>>10))
			continue
		}
		dst := filepath.Join(imgDir, prefix+"-"+en.Name())
		copies = append(copies, pictureCopy{src: filepath.Join(dir, en.Name()), dst: dst})
		rel, err := filepath.Rel(mdDir, dst)
		if err != nil {
			rel = dst
		}
		links = append(links, fmt.Sprintf("![%s](%s)", strings.TrimSuffix(en.Name(), ext), filepath.ToSlash(rel)))
	}
	return copies, links, nil
}
