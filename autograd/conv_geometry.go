package autograd

// ConvGeometry is the geometry of one 2-D convolution as a device's kernels
// see it: Conv2d's input [N, C, H, W], weight [O, C/Groups, KH, KW] and
// output [N, O, OutH, OutW], with the stride, the zero padding before each
// axis (the padding after it shows only in OutH and OutW) and the dilation.
// The im2col matrix of one sample and group has C/Groups·KH·KW rows
// (channel, kernel row, kernel column) and OutH·OutW columns.
type ConvGeometry struct {
	N, C, H, W           int
	O, KH, KW            int
	Groups               int
	StrideH, StrideW     int
	PadH, PadW           int
	DilationH, DilationW int
	OutH, OutW           int
}

// Conv2dGeometry returns the geometry of Conv2d for an input of shape
// xShape, a weight of shape wShape and cfg. With a padding mode other than
// zeros (cfg.Mode) it is the geometry of the unpadded convolution of the
// input padded by PadWith, as Conv2d computes it. It panics when the kernel
// is larger than the padded input.
func Conv2dGeometry(xShape, wShape []int, cfg Conv2dConfig) ConvGeometry {
	return conv2dGeom(xShape, wShape, cfg.withDefaults()).export()
}

func (g convGeom) export() ConvGeometry {
	return ConvGeometry{N: g.n, C: g.c, H: g.h, W: g.w, O: g.o, KH: g.kh, KW: g.kw, Groups: g.groups,
		StrideH: g.sh, StrideW: g.sw, PadH: g.ph, PadW: g.pw, DilationH: g.dh, DilationW: g.dw, OutH: g.oh, OutW: g.ow}
}
