package circuit

import (
	"bytes"
	"encoding/binary"
	"io"
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
#include "rule.h"
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
		writeCFiles(t, dir, tc.nl, Options{Name: "rule", Height: tc.h, Width: tc.w}, cMain)
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

// writeCFiles writes rule.c and rule.h of nl and main.c into dir.
func writeCFiles(t *testing.T, dir string, nl *Netlist, o Options, main string) {
	t.Helper()
	for file, write := range map[string]func(io.Writer, *Netlist, Options) error{"rule.c": WriteC, "rule.h": WriteCHeader} {
		var buf bytes.Buffer
		if err := write(&buf, nl, o); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, file), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "main.c"), []byte(main), 0o644); err != nil {
		t.Fatal(err)
	}
}

// cHeaderMain uses only what rule.h declares: it prints the training grid's
// macros, reads a grid of that size from stdin, runs 6 steps as trained and
// writes the grid back.
const cHeaderMain = `#include <stdio.h>
#include <stdlib.h>
#include "rule.h"
int main(void) {
  size_t n = rule_GRID_WORDS(rule_HEIGHT, rule_WIDTH);
  uint64_t *a = malloc(8 * n), *b = malloc(8 * n), *t;
  printf("%d %d %d %d %zu %zu\n", rule_HEIGHT, rule_WIDTH, rule_PERIODIC, rule_CHANNELS,
         rule_ROW_WORDS(rule_WIDTH), n);
  if (!a || !b || fread(a, 8, n, stdin) != n) return 2;
  for (int s = 0; s < 6; s++) {
    rule_step(rule_HEIGHT, rule_WIDTH, rule_PERIODIC, a, b, NULL);
    t = a; a = b; b = t;
  }
  fwrite(a, 8, n, stdout);
  return 0;
}
`

// A program that includes only the header compiles warning-free, sees the
// training grid the export was given and runs the rule as the simulator
// does on it: the learned checkerboard on its zero-bounded 16x16 grid,
// the learned Life on a 10x70 torus.
func TestCHeader(t *testing.T) {
	needTool(t, "gcc", "gcc")
	rng := rand.New(rand.NewPCG(32, 0))
	for _, tc := range []struct {
		name string
		o    Options
		want string // the macros main prints
	}{
		{"checkerboard", Options{Name: "rule", Height: 16, Width: 16, Boundary: Zero}, "16 16 0 8 1 128"},
		{"life", Options{Name: "rule", Height: 10, Width: 70, Boundary: Periodic}, "10 70 1 1 2 20"},
	} {
		nl := learned(t, tc.name)
		dir := t.TempDir()
		writeCFiles(t, dir, nl, tc.o, cHeaderMain)
		run(t, dir, "gcc", "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-o", "step", "rule.c", "main.c")
		g := NewGrid(tc.o.Height, tc.o.Width, nl.Channels())
		g.Randomize(rng)
		var in bytes.Buffer
		for _, p := range g.Planes {
			binary.Write(&in, binary.LittleEndian, p)
		}
		cmd := exec.Command(filepath.Join(dir, "step"))
		cmd.Stdin = &in
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: running the C program: %v", tc.name, err)
		}
		macros, grid, _ := bytes.Cut(out, []byte("\n"))
		if string(macros) != tc.want {
			t.Errorf("%s: the header's HEIGHT WIDTH PERIODIC CHANNELS ROW_WORDS GRID_WORDS are %q, want %q", tc.name, macros, tc.want)
		}
		got := NewGrid(g.H, g.W, g.C)
		r := bytes.NewReader(grid)
		for _, p := range got.Planes {
			if err := binary.Read(r, binary.LittleEndian, p); err != nil {
				t.Fatalf("%s: reading the C output: %v", tc.name, err)
			}
		}
		if want := NewSim(nl, tc.o.Boundary, 1).Run(g, 6); !got.Equal(want) {
			t.Errorf("%s: 6 steps as the header says the rule was trained differ from the simulator's", tc.name)
		}
	}
}
