//go:build !js

// NOTE: not in WebAssembly builds: the browser training page (web/trainwasm)
// reads no files, and npyio would add 1.4 MB to its 12 MB (npy_js.go).

package state

import (
	"fmt"
	"os"
	"reflect"

	"codeberg.org/sbinet/npyio"
)

// loadNPY reads a NumPy array [H, W, C] (C <= channels) of 0s and 1s, of
// any integer, float or bool dtype, in C order.
func loadNPY(path string, channels int) (*Grid, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open the state file: %w", err)
	}
	defer f.Close()
	r, err := npyio.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: not a NumPy .npy file: %w", path, err)
	}
	d := r.Header.Descr
	if len(d.Shape) != 3 || d.Shape[0] < 1 || d.Shape[1] < 1 || d.Shape[2] < 1 {
		return nil, fmt.Errorf("%s: array of shape %v: want [height, width, channels]", path, d.Shape)
	}
	if d.Fortran {
		return nil, fmt.Errorf("%s: array in Fortran order: save it in C order (numpy.ascontiguousarray)", path)
	}
	h, w, c := d.Shape[0], d.Shape[1], d.Shape[2]
	if c > channels {
		return nil, fmt.Errorf("%s: array of shape %v has %d channels, more than the %d of a cell", path, d.Shape, c, channels)
	}
	typ := npyio.TypeFrom(d.Type)
	if typ == nil {
		return nil, fmt.Errorf("%s: dtype %q: save the array as bool, integers or floats", path, d.Type)
	}
	data := reflect.New(reflect.SliceOf(typ))
	if err := r.Read(data.Interface()); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	g := &Grid{Height: h, Width: w, Channels: channels, Values: make([]float32, h*w*channels)}
	vals := data.Elem()
	for i := range vals.Len() {
		v, err := bit(vals.Index(i))
		if err != nil {
			return nil, fmt.Errorf("%s: element %v: %w", path, []int{i / (w * c), i / c % w, i % c}, err)
		}
		g.Values[i/c*channels+i%c] = v
	}
	return g, nil
}

// bit returns v as 0 or 1, or an error if it is neither.
func bit(v reflect.Value) (float32, error) {
	var x float64
	switch v.Kind() {
	case reflect.Bool:
		if v.Bool() {
			x = 1
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x = float64(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x = float64(v.Uint())
	case reflect.Float32, reflect.Float64:
		x = v.Float()
	default:
		return 0, fmt.Errorf("of type %v: save the array as bool, integers or floats", v.Type())
	}
	if x != 0 && x != 1 {
		return 0, fmt.Errorf("is %v: a state holds 0s and 1s only", x)
	}
	return float32(x), nil
}
