// Package web writes a learned cellular automaton as one self-contained
// HTML page: the hard circuit runs in the browser on a canvas, with
// play/pause, single steps, speed, grid size, resets, synchronous or
// asynchronous steps and damage by dragging the mouse. Nothing is fetched:
// the page works from file://.
//
// The simulator in the page is JavaScript generated from the netlist
// (RuleJS), bit-sliced like circuit.Sim but 32 cells per word, since
// JavaScript's bitwise operators work on 32-bit integers. Its steps are
// circuit.Sim's cell for cell: zero and periodic boundaries, and for
// asynchronous steps the same fire masks as circuit.FireMask with the same
// seed and step number. See docs/web.md.
package web
