package circuit

import "io"

// WriteC writes the netlist as C99 source with no dependencies beyond
// stdint.h and stddef.h, defining
//
//	void NAME_cell(const uint64_t in[9*C], uint64_t out[C]);
//
// one cell's update on 64 cells at once (in[n*C+c] holds channel c of
// neighbour n for each of 64 cells, one per bit), and
//
//	void NAME_step(int h, int w, int periodic, const uint64_t *src,
//	               uint64_t *dst, const uint64_t *fire);
//
// one step of an h x w grid in the layout of Grid: C planes one after the
// other, each h rows of (w+63)/64 words, cell x of a row in bit x%64 of
// word x/64, padding bits zero. fire is NULL for a synchronous step, or
// one plane of the same layout whose set bits mark the cells that update.
// src and dst must not overlap. Gates that reach no output are left out
// (C compilers warn about unused variables).
//
// The source begins with everything WriteCHeader's header declares (the
// functions and the macros of the training grid), under the same include
// guard, so it compiles on its own and its definitions are checked
// against the header's declarations.
func WriteC(w io.Writer, nl *Netlist, o Options) error {
	if err := checkGridExport(nl, o, "C"); err != nil {
		return err
	}
	nl = RemoveDead(nl)
	name, c := o.Name, nl.Channels()
	e := &errWriter{w: w}
	val := func(v int32) string { return nl.valueName(v, "in[%d]", "g%d") }
	e.printf("/* %s: a logic-gate cellular automaton with %d channel(s), %d gates,\n", name, c, len(nl.Gates))
	e.printf(" * bit-sliced: 64 cells per uint64_t. " + Generated + " */\n")
	writeCDeclarations(e, nl, o)
	e.printf("\n")
	e.printf("void %s_cell(const uint64_t in[9 * %s_CHANNELS], uint64_t out[%s_CHANNELS]) {\n", name, name, name)
	for k, g := range nl.Gates {
		e.printf("  const uint64_t g%d = %s;\n", k, expr(g.Op, val(g.A), val(g.B)))
	}
	for j, v := range nl.Outputs {
		e.printf("  out[%d] = %s;\n", j, val(v))
	}
	e.printf("}\n\n")
	e.printf(`/* Word k of a row as seen by each cell's neighbour dx (-1 west, 0 the cell,
 * +1 east); top is the bit of cell w-1 in the row's last word. */
static uint64_t %[1]s_shifted(const uint64_t *row, int ww, int k, int dx,
                              int top, int periodic) {
  if (dx == 0) return row[k];
  if (dx < 0) {
    uint64_t carry = k > 0 ? row[k - 1] >> 63
                           : (periodic ? (row[ww - 1] >> top) & 1 : 0);
    return (row[k] << 1) | carry;
  }
  uint64_t carry = k < ww - 1 ? row[k + 1] << 63
                              : (periodic ? (row[0] & 1) << top : 0);
  return (row[k] >> 1) | carry;
}

void %[1]s_step(int h, int w, int periodic, const uint64_t *src,
                uint64_t *dst, const uint64_t *fire) {
  const int C = %[2]d, ww = (w + 63) / 64, top = (w - 1) %% 64;
  const uint64_t last = w %% 64 ? (UINT64_C(1) << (w %% 64)) - 1 : ~UINT64_C(0);
  uint64_t in[9 * %[2]d], out[%[2]d];
  for (int y = 0; y < h; y++) {
    for (int k = 0; k < ww; k++) {
      for (int n = 0; n < 9; n++) {
        int yy = y + n / 3 - 1, dx = n %% 3 - 1;
        int outside = yy < 0 || yy >= h;
        yy = (yy + h) %% h;
        for (int c = 0; c < C; c++) {
          const uint64_t *row = src + ((size_t)c * h + yy) * ww;
          in[n * C + c] = outside && !periodic
                              ? 0
                              : %[1]s_shifted(row, ww, k, dx, top, periodic);
        }
      }
      %[1]s_cell(in, out);
      for (int c = 0; c < C; c++) {
        size_t i = ((size_t)c * h + y) * ww + k;
        uint64_t v = out[c];
        if (fire) v = (v & fire[(size_t)y * ww + k]) | (src[i] & ~fire[(size_t)y * ww + k]);
        dst[i] = k == ww - 1 ? v & last : v;
      }
    }
  }
}
`, name, c)
	return e.err
}

// WriteCHeader writes the header of WriteC's source: the declarations of
// NAME_cell and NAME_step and the macros
//
//	NAME_CHANNELS                  C, the channels of a cell
//	NAME_HEIGHT, NAME_WIDTH        the grid the rule was trained on
//	NAME_PERIODIC                  its boundary: 1 a torus, 0 zero cells
//	NAME_ROW_WORDS(w)              words of one row of w cells
//	NAME_GRID_WORDS(h, w)          words of a whole h x w grid
//
// so that a program can allocate grids and run the rule as it was
// trained: NAME_step(NAME_HEIGHT, NAME_WIDTH, NAME_PERIODIC, src, dst, NULL).
func WriteCHeader(w io.Writer, nl *Netlist, o Options) error {
	if err := checkGridExport(nl, o, "C header"); err != nil {
		return err
	}
	e := &errWriter{w: w}
	e.printf("/* %s.h: the interface of %s.c, a logic-gate cellular automaton with\n", o.Name, o.Name)
	e.printf(" * %d channel(s). %s */\n", nl.Channels(), Generated)
	writeCDeclarations(e, nl, o)
	return e.err
}

// writeCDeclarations writes what the C header declares, under its include
// guard: WriteC's source starts with the same text.
func writeCDeclarations(e *errWriter, nl *Netlist, o Options) {
	e.printf(`#ifndef %[1]s_H
#define %[1]s_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The rule was %[2]s.
 * Run it as trained: %[1]s_step(%[1]s_HEIGHT, %[1]s_WIDTH, %[1]s_PERIODIC, ...). */
#define %[1]s_CHANNELS %[3]d
#define %[1]s_HEIGHT %[4]d
#define %[1]s_WIDTH %[5]d
#define %[1]s_PERIODIC %[6]d

/* Words of one row of w cells, and of a whole h x w grid: %[1]s_CHANNELS
 * planes of h rows each, cell x of a row in bit x %% 64 of word x / 64. */
#define %[1]s_ROW_WORDS(w) (((size_t)(w) + 63) / 64)
#define %[1]s_GRID_WORDS(h, w) ((size_t)%[1]s_CHANNELS * (size_t)(h) * %[1]s_ROW_WORDS(w))

/* One cell's update for 64 cells, one per bit: in[n*%[1]s_CHANNELS + c] is
 * channel c of neighbour n (row-major 3x3, 4 = the cell); out[c] is channel c
 * of the next state. */
void %[1]s_cell(const uint64_t in[9 * %[1]s_CHANNELS], uint64_t out[%[1]s_CHANNELS]);

/* One step of an h x w grid (periodic: 1 wraps it into a torus, 0 reads
 * zero cells beyond the edges) from src into dst, which must not overlap.
 * fire is NULL for a synchronous step, or one plane (h rows of
 * %[1]s_ROW_WORDS(w) words) whose set bits mark the cells that update. */
void %[1]s_step(int h, int w, int periodic, const uint64_t *src,
                uint64_t *dst, const uint64_t *fire);

#ifdef __cplusplus
}
#endif

#endif /* %[1]s_H */
`, o.Name, o.describe("\n * "), nl.Channels(), o.Height, o.Width, periodic(o.Boundary))
}
