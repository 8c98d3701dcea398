// Package tensorfile reads and writes named tensors in the files PyTorch
// users exchange: safetensors (WriteSafetensors, ReadSafetensors) and
// torch.save's zip format (WriteTorch, ReadTorch for a state dict;
// WriteTorchObject, ReadTorchObject for any object of dicts, lists, tuples,
// numbers, strings and tensors, such as an optimizer's state_dict()).
//
// # Conventions
//
// A tensor in a file is an Entry: a name, an element type (F32, F64 or
// I64, safetensors' names), a shape and row-major little-endian bytes; a
// StateDict is an ordered list of them. EntryOf and Entry.Tensor convert
// from and to autograd tensors. Package nn names a module's tensors as
// PyTorch does (GetStateDict) and saves and loads modules; package optim
// saves optimisers in PyTorch's optimizer.state_dict() layout.
//
// Reading is strict: a damaged file, an element type other than the three,
// or a pickle that names anything but the globals a state dict needs
// (torch.load(weights_only=True)'s rule) is an error naming what was
// found, and nothing in a file is ever executed. Pickles are read with
// github.com/nlpodyssey/gopickle and written by this package's own small
// pickler (protocol 2, the opcodes torch.save uses).
package tensorfile
