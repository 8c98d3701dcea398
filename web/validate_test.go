package web

import (
	"io"
	"strings"
	"testing"

	"github.com/dlca/dlca/circuit"
)

// Write refuses a page it cannot run, saying what is wrong.
func TestWriteRejectsBadPages(t *testing.T) {
	nl := learned(t, "life") // one channel
	ok := func() *Page { return &Page{Name: "life", Netlist: nl, FireRate: 0.5, Sizes: []Size{{H: 8, W: 8}}} }
	notCA := &circuit.Netlist{NumInputs: 3, Gates: []circuit.Gate{{Op: 1, A: 0, B: 1}}, Outputs: []int32{3}}
	for _, tc := range []struct {
		name   string
		change func(p *Page)
		want   string
	}{
		{"no netlist", func(p *Page) { p.Netlist = nil }, "no netlist"},
		{"not a CA", func(p *Page) { p.Netlist = notCA }, "cellular-automaton netlist"},
		{"fire rate", func(p *Page) { p.FireRate = 1.5 }, "fire rate"},
		{"no size", func(p *Page) { p.Sizes = nil }, "no grid size"},
		{"huge grid", func(p *Page) { p.Sizes[0] = Size{H: 2048, W: 2048} }, "freeze"},
		{"init shape", func(p *Page) { p.Sizes[0].Init = circuit.NewGrid(8, 8, 2) }, "initial state"},
		{"target shape", func(p *Page) {
			p.Sizes[0].Target, p.Sizes[0].TargetChannels = circuit.NewGrid(8, 8, 1), []int{0, 1}
		}, "target"},
		{"target channel", func(p *Page) {
			p.Sizes[0].Target, p.Sizes[0].TargetChannels = circuit.NewGrid(8, 8, 1), []int{3}
		}, "target channel 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := ok()
			tc.change(p)
			if err := Write(io.Discard, p); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Write: %v, want an error mentioning %q", err, tc.want)
			}
		})
	}
	if err := Write(io.Discard, ok()); err != nil {
		t.Fatalf("a good page: %v", err)
	}
}

// A name cannot break out of the page's title or its settings script.
func TestWriteEscapesName(t *testing.T) {
	var b strings.Builder
	name := `</script><script>alert(1)</script><title>`
	if err := Write(&b, &Page{Name: name, Netlist: learned(t, "life"), Sizes: []Size{{H: 8, W: 8}}}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), name) || strings.Count(b.String(), "</script>") != 2 {
		t.Error("the model's name appears unescaped in the page")
	}
}
