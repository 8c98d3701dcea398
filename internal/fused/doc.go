// Package fused holds elementwise kernels that run in one pass over their
// slices, in assembly where the CPU allows, with the same bits as their
// pure-Go form: each uses only correctly rounded IEEE operations (no fused
// multiply-add), in the order the Go form writes them, so the assembly and
// the fallback agree exactly and a trained model does not depend on the
// machine.
//
// The package imports nothing of the project.
package fused
