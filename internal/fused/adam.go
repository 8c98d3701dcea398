package fused

import "math"

// Adam holds the float64 constants of one Adam update (see optim's
// AdamUpdate; OneMinusB1 and OneMinusB2 are 1-B1 and 1-B2 as computed
// there).
type Adam struct {
	B1, OneMinusB1, B2, OneMinusB2 float64
	L2, Decay                      float64
	StepSize, SqrtBC2, Eps         float64
}

// AdamFloat32 updates the float32 parameters p from their gradients g and
// moments m and v (all of one length), in float64 as
//
//	g' = g + L2·p;  p' = p·Decay
//	m = B1·m + (1-B1)·g';  v = B2·v + (1-B2)·g'·g'
//	p = p' - StepSize·m / (√v/SqrtBC2 + Eps)
//
// with m and v rounded to float32 when stored but used unrounded, every
// product rounded before it is added. It panics when the lengths differ.
func AdamFloat32(p, g, m, v []float32, c *Adam) {
	n := len(p)
	if len(g) != n || len(m) != n || len(v) != n {
		panic("fused: AdamFloat32: slices of different lengths")
	}
	done := 0
	if useAsm && n >= 4 {
		done = n &^ 3
		adamAVX2(&p[0], &g[0], &m[0], &v[0], done, c)
	}
	adamGo(p[done:], g[done:], m[done:], v[done:], c)
}

// adamGo is AdamFloat32 in Go: the form the assembly matches bit for bit.
func adamGo(p, g, m, v []float32, c *Adam) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	for j := range p {
		pj := float64(p[j])
		gj := float64(g[j]) + float64(c.L2*pj)
		pj *= c.Decay
		mj := float64(c.B1*float64(m[j])) + float64(c.OneMinusB1*gj)
		vj := float64(c.B2*float64(v[j])) + float64(float64(c.OneMinusB2*gj)*gj)
		m[j], v[j] = float32(mj), float32(vj)
		p[j] = float32(pj - float64(c.StepSize*mj)/(math.Sqrt(vj)/c.SqrtBC2+c.Eps))
	}
}
