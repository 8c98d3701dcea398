// Package gputrain trains a DiffLogic CA on the GPU through the autograd
// core: the rollout is dlca.Model.GraphRolloutWith (autograd's general ops
// and the fused gate layer) on a gpu.AutogradDevice, and one whole training
// step (rollout, loss, backward pass, clipping, AdamW) is captured once with
// gpu.Capture and replayed every iteration with the new batch and fire
// masks as the step's inputs. Its Engine is a bptt.Engine, so bptt.Train
// runs it as it runs the CPU engine.
//
// It sits above bptt, dlca and gpu so that gpu stays the WebGPU device
// (docs/gpu.md, "Training the CA through the captured autograd step").
package gputrain
