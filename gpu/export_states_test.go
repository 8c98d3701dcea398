package gpu

// States reads back every state of the last rollout [T+1][cells][C], the
// initial one first: the parity tests hold each step to the CPU's, so that
// a bug in how one step hands its state to the next cannot hide behind a
// final state that happens to agree.
func States(e *Engine) ([][]float32, error) {
	var out [][]float32
	for _, s := range e.r.state {
		v, err := Read[float32](e.d, s, e.r.grid.Len())
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}
