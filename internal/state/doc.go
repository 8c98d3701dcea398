// Package state reads and writes cellular-automaton states as files, so that
// a run can start from a chosen state and hand its states to other tools.
//
// A State is one grid of Height x Width cells with Channels values each,
// laid out [Height, Width, Channels] as everywhere in this project. Load
// reads one from
//
//   - a NumPy .npy array [H, W, C] (bool, uint8, int8-64, uint16-64,
//     float32 or float64; C order or Fortran order) of 0s and 1s, or of
//     values in [0, 1] where Spec.Soft allows them;
//   - a PNG picture: channel 0 is 1 where the pixel's grey level is at
//     least Spec.Threshold (white is 1, as the project's pictures draw it),
//     or, with Spec.Palette, each colour sets the bits of the leading
//     channels (ParsePalette describes the format, shared by dlca eval's
//     -palette flag and experiment files).
//
// NPYWriter streams an array whose shape is known up front, such as every
// state of a rollout [T+1, H, W, C], one state at a time, so that memory does
// not grow with the steps.
package state
