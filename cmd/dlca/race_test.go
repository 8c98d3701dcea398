//go:build race

package main

// raceEnabled: the race detector multiplies memory use, so tests that
// measure it skip.
const raceEnabled = true
