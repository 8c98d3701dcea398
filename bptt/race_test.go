//go:build race

package bptt_test

// raceEnabled: the race detector multiplies memory use, so tests that
// measure it skip.
const raceEnabled = true
