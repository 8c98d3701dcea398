package viewer

import (
	"fmt"
	"image"
	"os"
	"path/filepath"

	"github.com/dlca/dlca/viewer/painter"
)

// shooter writes screenshots of rendered frames.
type shooter struct {
	dir     string
	pending bool
	path    string // explicit path of the pending shot, or "" for numbered
	n       int    // last number used
	last    string
	err     error
}

func (s *shooter) request(path string) {
	s.pending, s.path = true, path
}

// take writes img if a screenshot is pending and returns a status message.
func (s *shooter) take(img image.Image) (msg string, took bool) {
	if !s.pending {
		return "", false
	}
	s.pending = false
	path := s.path
	if path == "" {
		path = s.nextFree()
	}
	if s.err = painter.SavePNG(path, img); s.err != nil {
		return s.err.Error(), true
	}
	s.last = path
	return "saved " + filepath.Base(path), true
}

// nextFree returns the first dlca-view-NNN.png in dir that does not exist.
func (s *shooter) nextFree() string {
	for {
		s.n++
		p := filepath.Join(s.dir, fmt.Sprintf("dlca-view-%03d.png", s.n))
		if _, err := os.Stat(p); os.IsNotExist(err) {
			return p
		}
	}
}
