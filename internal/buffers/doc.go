// Package buffers keeps working memory for kernels between calls: a free
// list of slices that, unlike sync.Pool, survives garbage collections.
//
// A sync.Pool is emptied by every second collection. A training loop whose
// tensors come back through autograd's storage pool runs the collector
// itself every few steps, and each time a sync.Pool of packing buffers or
// im2col columns would lose them all and the next products allocate them
// again (about 70 KB an MLP step). A List holds at most Max slices, the
// largest ever asked for by as many goroutines as run kernels at once.
package buffers
