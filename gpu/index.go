package gpu

import (
	"fmt"
)

// Index is a fixed gather pattern on the device: for each of N outputs, the
// offset of the source element it copies, or Outside for a cell that takes
// a fill value, and the reverse index that sums gradients back into the
// Src source elements without atomics. autograd's IndexSelect, Gather,
// ScatterAdd and IndexAdd, PadWith and the convolutions' im2col are all
// such patterns; a layer builds its Index once per shape.
type Index struct {
	N, Src int
	offs   *Buffer // [N]
	start  *Buffer // [Src+1]
	pos    *Buffer // positions i grouped by offs[i], increasing within a group
}

// Outside marks an offset that reads no source element.
const Outside = -1

// NewIndex uploads offs, each in [0, src) or Outside, and its reverse index.
func (d *Device) NewIndex(label string, offs []int, src int) (*Index, error) {
	start, pos := reverseIndex(offs, src)
	raw := make([]uint32, len(offs))
	for i, o := range offs {
		raw[i] = uint32(o) // Outside becomes 0xffffffff, as gather.wgsl expects
	}
	ix := &Index{N: len(offs), Src: src}
	var err error
	if ix.offs, err = NewBufferFrom(d, label+" offsets", raw); err != nil {
		return nil, err
	}
	if ix.start, err = NewBufferFrom(d, label+" reverse start", start); err != nil {
		ix.Release()
		return nil, err
	}
	if ix.pos, err = NewBufferFrom(d, label+" reverse positions", pos); err != nil {
		ix.Release()
		return nil, err
	}
	return ix, nil
}

// reverseIndex groups the positions i of offs by offs[i] (a counting sort,
// stable, so each group is increasing): the positions reading source
// element q are pos[start[q]:start[q+1]]. Outside entries are left out.
func reverseIndex(offs []int, src int) (start, pos []uint32) {
	start = make([]uint32, src+1)
	for i, o := range offs {
		if o == Outside {
			continue
		}
		if o < 0 || o >= src {
			panic(fmt.Sprintf("gpu: offset %d at %d outside a source of %d elements", o, i, src))
		}
		start[o+1]++
	}
	for q := range src {
		start[q+1] += start[q]
	}
	next := append([]uint32(nil), start[:src]...)
	pos = make([]uint32, start[src])
	for i, o := range offs {
		if o != Outside {
			pos[next[o]] = uint32(i)
			next[o]++
		}
	}
	return start, pos
}

// Release frees the index's buffers.
func (ix *Index) Release() {
	ix.offs.Release()
	ix.start.Release()
	ix.pos.Release()
}

// Gather records dst[i] = src[offs[i]] for the N outputs of ix, and fill
// where offs[i] is Outside.
func (o Ops) Gather(dst, src *Buffer, ix *Index, fill float32) error {
	if dst.N < ix.N || src.N < ix.Src {
		panic(fmt.Sprintf("gpu: Gather of %d from %d elements: buffers %q of %d and %q of %d", ix.N, ix.Src, dst.Label, dst.N, src.Label, src.N))
	}
	return o.dispatch("gather.wgsl", ix.N, gatherParams{N: uint32(ix.N), Fill: fill}, ix.offs, src, dst)
}

// ScatterAdd records the transpose of Gather: dst[q] = sum of src[i] over
// the i with offs[i] == q, added to dst's own value when accumulate is set.
func (o Ops) ScatterAdd(dst, src *Buffer, ix *Index, accumulate bool) error {
	if dst.N < ix.Src || src.N < ix.N {
		panic(fmt.Sprintf("gpu: ScatterAdd of %d into %d elements: buffers %q of %d and %q of %d", ix.N, ix.Src, src.Label, src.N, dst.Label, dst.N))
	}
	par := gatherParams{N: uint32(ix.Src)}
	if accumulate {
		par.Accumulate = 1
	}
	return o.dispatch("scatter_add.wgsl", ix.Src, par, ix.start, ix.pos, src, dst)
}
