package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

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
