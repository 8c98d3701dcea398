package gpu

import "github.com/dlca/dlca/gates"

// coeffTable flattens gates.CoeffTable() to [16][4] float32, the layout of
// the table binding of gate_coeffs.wgsl and gate_logit_grad.wgsl. It is the
// only way the 16 gates reach the device: no shader spells them out.
func coeffTable() []float32 {
	t := gates.CoeffTable()
	out := make([]float32, 0, 4*gates.NumOps)
	for _, c := range t {
		for _, v := range c {
			out = append(out, float32(v))
		}
	}
	return out
}

// uploadTable puts coeffTable on the device.
func (d *Device) uploadTable() (*Buffer, error) {
	return NewBufferFrom(d, "gates coefficient table", coeffTable())
}
