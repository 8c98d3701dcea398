package autograd

import "fmt"

// ConvTranspose2dConfig holds a transposed convolution's options, each as
// (height, width), as torch.nn.functional.conv_transpose2d's. Zero Stride
// and Dilation mean 1 and zero Groups means 1. Padding takes that many
// cells off both sides of each output axis, and OutputPadding adds cells
// after it (bottom, right): a strided convolution maps several input
// sizes to one output size, and OutputPadding picks among them.
type ConvTranspose2dConfig struct {
	Stride        [2]int
	Padding       [2]int
	OutputPadding [2]int
	Dilation      [2]int
	Groups        int
}

// ConvTranspose2d is torch.nn.functional.conv_transpose2d: x [N, Cin, H,
// W], w [Cin, Cout/groups, KH, KW] (PyTorch's layout), bias [Cout] or nil,
// giving [N, Cout, Hout, Wout] with
//
//	Hout = (H-1)·stride - 2·padding + dilation·(KH-1) + output_padding + 1
//
// (and likewise Wout). It is the gradient of Conv2d with respect to its
// input: the convolution that maps [N, Cout, Hout, Wout] to x with weight
// w, run backwards (Conv2d's input-gradient op, col2im after a Gemm, on
// every device). Its gradients are therefore those of that op: a Conv2d of
// the output gradient for x and a weight-gradient correlation for w, and
// they can be differentiated again. As PyTorch, output_padding must be
// smaller than the stride or the dilation. It panics, naming the shapes,
// when they are inconsistent.
func ConvTranspose2d(x, w, bias *Tensor, cfg ConvTranspose2dConfig) *Tensor {
	checkDType("ConvTranspose2d", x, w)
	for i := range 2 {
		cfg.Stride[i] = max(cfg.Stride[i], 1)
		cfg.Dilation[i] = max(cfg.Dilation[i], 1)
	}
	cfg.Groups = max(cfg.Groups, 1)
	if x.Dim() != 4 || w.Dim() != 4 || x.shape[1] != w.shape[0] || w.shape[0]%cfg.Groups != 0 {
		panic(fmt.Sprintf("autograd: ConvTranspose2d: input %v, weight %v, groups %d (want [N, Cin, H, W], [Cin, Cout/groups, KH, KW], groups dividing Cin)", x.shape, w.shape, cfg.Groups))
	}
	g := convGeom{n: x.shape[0], c: w.shape[1] * cfg.Groups, o: w.shape[0], kh: w.shape[2], kw: w.shape[3],
		groups: cfg.Groups, sh: cfg.Stride[0], sw: cfg.Stride[1], ph: cfg.Padding[0], pw: cfg.Padding[1],
		dh: cfg.Dilation[0], dw: cfg.Dilation[1], oh: x.shape[2], ow: x.shape[3]}
	for i, in := range []int{x.shape[2], x.shape[3]} {
		s, p, d, op := cfg.Stride[i], cfg.Padding[i], cfg.Dilation[i], cfg.OutputPadding[i]
		if p < 0 || op < 0 || op >= s && op >= d {
			panic(fmt.Sprintf("autograd: ConvTranspose2d: padding %v, output padding %v with stride %v and dilation %v (want padding >= 0 and 0 <= output padding < stride or dilation)", cfg.Padding, cfg.OutputPadding, cfg.Stride, cfg.Dilation))
		}
		size := (in-1)*s - 2*p + d*(w.shape[2+i]-1) + op + 1
		if size <= 0 {
			panic(fmt.Sprintf("autograd: ConvTranspose2d: input %v, weight %v with %+v give an output of length %d", x.shape, w.shape, cfg, size))
		}
		if i == 0 {
			g.h = size
		} else {
			g.w = size
		}
	}
	if bias != nil && (bias.Dim() != 1 || bias.shape[0] != g.c) {
		panic(fmt.Sprintf("autograd: ConvTranspose2d: bias %v for weight %v and %d groups (want [%d])", bias.shape, w.shape, cfg.Groups, g.c))
	}
	y := convInputGrad(g, x, w)
	if bias != nil {
		checkDType("ConvTranspose2d", x, bias)
		y = Add(y, Reshape(bias, g.c, 1, 1))
	}
	return y
}
