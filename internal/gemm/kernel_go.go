package gemm

// The pure-Go micro-kernels: the fallback everywhere the assembly does not
// run, and the reference the assembly is tested against.

// microGo computes one mr×nr tile as the kernel type's micro does.
func microGo[T Float](mr, nr, k int, ap, bp, c []T, ldc int, add bool) {
	var acc [6 * 16]T
	for p := range k {
		a := ap[p*mr : p*mr+mr]
		b := bp[p*nr : p*nr+nr]
		for i, av := range a {
			row := acc[i*nr : i*nr+nr]
			for j, bv := range b {
				row[j] += av * bv
			}
		}
	}
	for i := range mr {
		dst := c[i*ldc : i*ldc+nr]
		src := acc[i*nr : i*nr+nr]
		if add {
			for j := range dst {
				dst[j] += src[j]
			}
		} else {
			copy(dst, src)
		}
	}
}

func microGo32(k int, ap, bp, c []float32, ldc int, add bool) {
	microGo(6, 16, k, ap, bp, c, ldc, add)
}

func microGo64(k int, ap, bp, c []float64, ldc int, add bool) {
	microGo(6, 8, k, ap, bp, c, ldc, add)
}

var (
	f32Kernel = kernel[float32]{mr: 6, nr: 16, micro: microGo32}
	f64Kernel = kernel[float64]{mr: 6, nr: 8, micro: microGo64}
)

// Assembly reports whether the assembly micro-kernels run.
func Assembly() bool { return f32Kernel.micro != nil && asmActive }

// UseAssembly switches the assembly micro-kernels on or off (where they
// can run at all) and returns whether they were on: for tests and
// benchmarks that compare the two paths. It must not run concurrently with
// a product.
func UseAssembly(on bool) (was bool) {
	was = asmActive
	asmActive = on && hasAsm()
	if asmActive {
		f32Kernel.micro, f64Kernel.micro = asmMicro32, asmMicro64
	} else {
		f32Kernel.micro, f64Kernel.micro = microGo32, microGo64
	}
	return was
}

var asmActive bool

func init() { UseAssembly(true) }
