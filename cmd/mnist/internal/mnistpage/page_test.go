package mnistpage

import (
	"slices"
	"strings"
	"testing"

	"github.com/dlca/dlca/cmd/internal/mnist"
	"github.com/dlca/dlca/internal/idx"
)

// set returns n images of 2x3 pixels, image k's pixels k*10+j, label k%10.
func set(n, first int) *mnist.Set {
	s := &idx.Set{Rows: 2, Cols: 3}
	for k := first; k < first+n; k++ {
		for j := range 6 {
			s.Images = append(s.Images, byte(k*10+j))
		}
		s.Labels = append(s.Labels, k%10)
	}
	return &mnist.Set{Set: s, Mean: 0.25, Std: 0.5}
}

// TestDataRoundTrip: what the writer packs, the trainer unpacks, image by
// image and label by label, with the data set's standardisation; data of
// another size is refused.
func TestDataRoundTrip(t *testing.T) {
	train, test := set(3, 0), set(2, 3)
	s := Settings{Train: 3, Test: 2, Rows: 2, Cols: 3, Mean: 0.25, Std: 0.5}
	data := encodeData(train, test)
	gotTrain, gotTest, err := DecodeData(s, data)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct{ got, want *mnist.Set }{{gotTrain, train}, {gotTest, test}} {
		if !slices.Equal(c.got.Images, c.want.Images) || !slices.Equal(c.got.Labels, c.want.Labels) ||
			c.got.Rows != 2 || c.got.Cols != 3 || c.got.Mean != 0.25 || c.got.Std != 0.5 {
			t.Errorf("set %d: unpacked %+v %+v, packed %+v", i, *c.got.Set, *c.got, *c.want.Set)
		}
	}
	if _, _, err := DecodeData(s, data[1:]); err == nil || !strings.Contains(err.Error(), "3 training and 2 held-out images of 2x3") {
		t.Errorf("short data: %v", err)
	}
}

// TestWriteRefuses: a page without a trainer, with an unknown model, bad
// settings or no images is refused with the reason.
func TestWriteRefuses(t *testing.T) {
	ok := Page{Dataset: mnist.MNIST, Train: set(3, 0), Test: set(2, 3), Model: "mlp", Epochs: 1, Batch: 2, LR: 1e-3}
	tr := &Trainer{Wasm: []byte("wasm")}
	var b strings.Builder
	if err := Write(&b, &ok, tr); err != nil || !strings.Contains(b.String(), `"model":"mlp"`) {
		t.Fatalf("a good page: %v", err)
	}
	for _, c := range []struct {
		edit func(*Page)
		tr   *Trainer
		want string
	}{
		{func(*Page) {}, nil, "without a trainer"},
		{func(p *Page) { p.Model = "resnet" }, tr, "unknown model"},
		{func(p *Page) { p.LR = 0 }, tr, "must be positive"},
		{func(p *Page) { p.Test = set(0, 0) }, tr, "held-out images"},
	} {
		p := ok
		c.edit(&p)
		if err := Write(&b, &p, c.tr); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error saying %q", err, c.want)
		}
	}
}
