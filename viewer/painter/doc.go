// Package painter turns cellular-automaton grids into images, with no
// dependency on a window system, so that command-line tools can write PNG
// and animated GIF files on machines without a display.
//
// Conventions:
//   - A Frame is one grid: H rows of W cells, each with C channel values,
//     stored row-major as [H][W][C] (the layout of one batch element of a
//     dlca grid). Values are in [0,1]; values outside are clamped.
//   - A channel value v is drawn as the grey level round(255*v): 0 is black,
//     1 is white and soft values in between are greys. With Options.RGB the
//     first three channels are drawn as red, green and blue (the coloured G).
//   - Cell (y, x) covers the Scale x Scale pixel block whose top-left corner is
//     (x*Scale, y*Scale). With grid lines, the last pixel row and column of
//     every block are drawn in GridColour instead.
//   - Programmer errors (a channel that does not exist, a malformed Frame)
//     panic with a message prefixed by "painter:"; failures to write files
//     are returned as errors.
package painter
