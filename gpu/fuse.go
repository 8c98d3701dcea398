package gpu

// fuse rewrites a captured program's chains of elementwise kernels as one
// kernel each (not yet: the program is kept as recorded).
func (a *AutogradDevice) fuse(p *program) {}
