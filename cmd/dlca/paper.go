package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dlca/dlca/internal/safefile"
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

// copyPictures copies the pictures of run directory dir (loss curve,
// animations, plots) that are at most maxPictureBytes into imgDir, named
// prefix-FILE, and returns markdown image links to them relative to mdDir,
// the directory of the results page. Larger pictures are named as skipped.
func copyPictures(dir, imgDir, mdDir, prefix string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("cannot list %s: %w", dir, err)
	}
	var links []string
	for _, en := range entries {
		ext := filepath.Ext(en.Name())
		if en.IsDir() || (ext != ".png" && ext != ".gif") {
			continue
		}
		info, err := en.Info()
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", filepath.Join(dir, en.Name()), err)
		}
		if info.Size() > maxPictureBytes {
			links = append(links, fmt.Sprintf("(%s: %d KB, not copied)", en.Name(), info.Size()>>10))
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, en.Name()))
		if err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", filepath.Join(dir, en.Name()), err)
		}
		dst := filepath.Join(imgDir, prefix+"-"+en.Name())
		if err := safefile.Write(dst, func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(mdDir, dst)
		if err != nil {
			rel = dst
		}
		links = append(links, fmt.Sprintf("![%s](%s)", strings.TrimSuffix(en.Name(), ext), filepath.ToSlash(rel)))
	}
	return links, nil
}
