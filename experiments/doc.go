// Package experiments holds experiments as data. A Config is everything a
// run is (model, training settings, optimiser, initial state, target, the
// checks to run after training) and reads from and prints as an experiment
// file (TOML, docs/config.md): Load, Parse, Set (the command line's -set),
// WriteTOML. Resolve checks a Config, naming the key and line of every
// problem, and returns the Experiment that trains.
//
// The paper's experiments are built-in Configs: each file registers one
// (Register), so that dlca config -experiment NAME prints it and a file
// printed so trains exactly what the name does. Adding a built-in
// experiment means adding one such file; anyone else writes a file.
//
// Checks run the hard circuit (dlca.Circuit) from a fixed seed, so that a
// model always gets the same verdict; on the JAX stream they draw from the
// keys the paper's notebook holds after training, as its check cells do
// (checkdraw.go). JAXDraw draws the batches of the JAX stream.
package experiments
