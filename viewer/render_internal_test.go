package viewer

import (
	"image"
	"reflect"
	"testing"
)

func TestWrap(t *testing.T) {
	cases := []struct {
		s    string
		n    int
		want []string
	}{
		{"short", 10, []string{"short"}},
		{"no limit at all here", 0, []string{"no limit at all here"}},
		{"hard loss 12", 9, []string{"hard loss", "12"}},
		{"abcdefghij", 4, []string{"abcd", "efgh", "ij"}},
		{"a bb ccc dddd", 6, []string{"a bb", "ccc", "dddd"}},
	}
	for _, c := range cases {
		if got := wrap(c.s, c.n); !reflect.DeepEqual(got, c.want) {
			t.Errorf("wrap(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

func TestLine(t *testing.T) {
	cases := []struct {
		name string
		p, q image.Point
		want []image.Point
	}{
		{"one cell", image.Pt(2, 3), image.Pt(2, 3), []image.Point{{2, 3}}},
		{"across", image.Pt(0, 0), image.Pt(3, 0), []image.Point{{0, 0}, {1, 0}, {2, 0}, {3, 0}}},
		{"diagonal back", image.Pt(2, 2), image.Pt(0, 0), []image.Point{{2, 2}, {1, 1}, {0, 0}}},
		{"shallow", image.Pt(0, 0), image.Pt(4, 1), []image.Point{{0, 0}, {1, 0}, {2, 1}, {3, 1}, {4, 1}}},
	}
	for _, c := range cases {
		if got := line(c.p, c.q); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: line(%v, %v) = %v, want %v", c.name, c.p, c.q, got, c.want)
		}
	}
}
