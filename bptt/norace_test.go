//go:build !race

package bptt_test

// raceEnabled: see race_test.go.
const raceEnabled = false
