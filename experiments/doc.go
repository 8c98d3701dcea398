// Package experiments holds the paper's experiments as data: each file
// registers one Experiment (model config, training settings, initial state,
// target, loss channels and the checks to run after training). Adding an
// experiment means adding one such file; the dlca command lists them.
//
// Checks run the hard circuit (dlca.Circuit) from a fixed seed, so that a
// model always gets the same verdict.
package experiments
