package circuit

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// cMain drives the exported step function: it reads h, w, periodic,
// channels and steps (int32 each) and the grid's words from stdin; for each
// step an int32 flag and, when set, a fire plane; it writes the final grid.
const cMain = `#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
void rule_step(int h, int w, int periodic, const uint64_t *src, uint64_t *dst, const uint64_t *fire);
static void get(void *p, size_t n) { if (fread(p, 1, n, stdin) != n) exit(2); }
int main(void) {
  int32_t hdr[5];
  get(hdr, sizeof hdr);
  int h = hdr[0], w = hdr[1], periodic = hdr[2], c = hdr[3], steps = hdr[4];
  size_t plane = (size_t)h * ((w + 63) / 64), n = plane * c;
  uint64_t *a = malloc(8 * n), *b = malloc(8 * n), *fire = malloc(8 * plane);
  get(a, 8 * n);
  for (int s = 0; s < steps; s++) {
    int32_t async;
    get(&async, 4);
    if (async) get(fire, 8 * plane);
    rule_step(h, w, periodic, a, b, async ? fire : NULL);
    uint64_t *t = a; a = b; b = t;
  }
  fwrite(a, 8, n, stdout);
  return 0;
}
`

func TestCMatchesSim(t *testing.T) {
	needTool(t, "gcc", "gcc")
	rng := rand.New(rand.NewPCG(31, 0))
	cases := []struct {
		nl   *Netlist
		h, w int
	}{
		{LifeCircuit(), 9, 64},
		{LifeCircuit(), 6, 130},
		{labelled(randomCA(rng, 3, 150)), 5, 70},
		{randomCA(rng, 2, 60), 3, 5},
		{wireConstCA(), 4, 66},
	}
	for i, tc := range cases {
		dir := t.TempDir()
		var src bytes.Buffer
		if err := WriteC(&src, tc.nl, "rule"); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "rule.c"), src.Bytes(), 0o644)
		os.WriteFile(filepath.Join(dir, "main.c"), []byte(cMain), 0o644)
		run(t, dir, "gcc", "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-o", "step", "rule.c", "main.c")
		for _, b := range []Boundary{Periodic, Zero} {
			const steps = 5
			c := tc.nl.Channels()
			g := NewGrid(tc.h, tc.w, c)
			g.Randomize(rng)
			var in bytes.Buffer
			periodic := map[Boundary]int32{Zero: 0, Periodic: 1}[b]
			binary.Write(&in, binary.LittleEndian, []int32{int32(tc.h), int32(tc.w), periodic, int32(c), steps})
			for _, p := range g.Planes {
				binary.Write(&in, binary.LittleEndian, p)
			}
			sim := NewSim(tc.nl, b, 2)
			cur := g
			for step := range steps {
				next := NewGrid(g.H, g.W, c)
				async := step%2 == 1
				binary.Write(&in, binary.LittleEndian, map[bool]int32{false: 0, true: 1}[async])
				if async {
					sim.StepAsync(next, cur, 0.6, 4, step)
					m := make([]uint64, g.Words)
					for y := range g.H {
						FireMask(m, g.W, 0.6, 4, step, y)
						binary.Write(&in, binary.LittleEndian, m)
					}
				} else {
					sim.Step(next, cur)
				}
				cur = next
			}
			cmd := exec.Command(filepath.Join(dir, "step"))
			cmd.Stdin = &in
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("case %d: running the C step: %v", i, err)
			}
			got := NewGrid(g.H, g.W, c)
			r := bytes.NewReader(out)
			for _, p := range got.Planes {
				if err := binary.Read(r, binary.LittleEndian, p); err != nil {
					t.Fatalf("case %d: reading the C output: %v", i, err)
				}
			}
			if !got.Equal(cur) {
				t.Fatalf("case %d, %v: C grid after %d steps differs from the simulator", i, b, steps)
			}
		}
	}
}
