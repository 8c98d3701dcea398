package experiments

import "testing"

// components counts the 4-connected components of the cells of an h x w
// grid for which in returns true.
func components(h, w int, in func(y, x int) bool) int {
	seen := make([]bool, h*w)
	n := 0
	for i := range seen {
		if seen[i] || !in(i/w, i%w) {
			continue
		}
		n++
		stack := []int{i}
		seen[i] = true
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			y, x := j/w, j%w
			for _, d := range [][2]int{{-1, 0}, {1, 0}, {0, -1}, {0, 1}} {
				ny, nx := y+d[0], x+d[1]
				if ny >= 0 && ny < h && nx >= 0 && nx < w && !seen[ny*w+nx] && in(ny, nx) {
					seen[ny*w+nx] = true
					stack = append(stack, ny*w+nx)
				}
			}
		}
	}
	return n
}

func TestLizardSilhouette(t *testing.T) {
	l := DrawnLizard(LizardSize, LizardSize)
	area := 0
	for y := range LizardSize {
		for x := range LizardSize {
			v := l[y*LizardSize+x]
			if v != 0 && v != 1 {
				t.Fatalf("cell (%d,%d) = %v, want 0 or 1", y, x, v)
			}
			if v == 1 && (y == 0 || x == 0 || y == LizardSize-1 || x == LizardSize-1) {
				t.Fatalf("cell (%d,%d) on the border: the periodic grid would join it to the opposite side", y, x)
			}
			area += int(v)
		}
	}
	// One piece, a fifth to a half of the square, and the centre (the seed)
	// inside it.
	if n := components(LizardSize, LizardSize, func(y, x int) bool { return l[y*LizardSize+x] == 1 }); n != 1 {
		t.Fatalf("the silhouette has %d pieces, want 1", n)
	}
	if area < LizardSize*LizardSize/5 || area > LizardSize*LizardSize/2 {
		t.Fatalf("area %d of %d cells", area, LizardSize*LizardSize)
	}
	if l[LizardSize/2*LizardSize+LizardSize/2] != 1 {
		t.Fatal("the centre cell, where the seed is, is outside the lizard")
	}
	// On a 40x40 grid the same silhouette sits in the middle.
	big := DrawnLizard(40, 40)
	for y := range 40 {
		for x := range 40 {
			want := float32(0)
			if y >= 10 && y < 30 && x >= 10 && x < 30 {
				want = l[(y-10)*LizardSize+x-10]
			}
			if big[y*40+x] != want {
				t.Fatalf("40x40 cell (%d,%d) = %v, want %v", y, x, big[y*40+x], want)
			}
		}
	}
}

func TestColourG(t *testing.T) {
	g := DrawnColourG(GSize, GSize)
	count := map[[3]float32]int{}
	for i := range GSize * GSize {
		var c [3]float32
		copy(c[:], g[3*i:])
		count[c]++
	}
	// Only the four colours and black, each colour a fair share of the ink.
	ink := 0
	for _, c := range [][3]float32{gRed, gYellow, gGreen, gBlue} {
		if count[c] < 5 {
			t.Errorf("colour %v covers %d cells", c, count[c])
		}
		ink += count[c]
	}
	if black := count[[3]float32{}]; ink+black != GSize*GSize {
		t.Fatalf("%d cells of other colours than red, yellow, green, blue and black: %v", GSize*GSize-ink-black, count)
	}
	// A G is one stroke, open on the right above its bar: the cell right of
	// the centre, two rows up, is background, and so is the centre.
	in := func(y, x int) bool { return g[3*(y*GSize+x)]+g[3*(y*GSize+x)+1]+g[3*(y*GSize+x)+2] > 0 }
	if n := components(GSize, GSize, in); n != 1 {
		t.Fatalf("the G has %d pieces, want 1", n)
	}
	if in(GSize/2, GSize/2) || in(GSize/2-2, GSize/2+3) {
		t.Fatal("the G is closed: ink at its centre or in its opening")
	}
	if ink < 40 || ink > GSize*GSize/2 {
		t.Fatalf("%d ink cells", ink)
	}
}
