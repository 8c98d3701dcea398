package viewer_test

import (
	"fmt"
	"image"

	"github.com/dlca/dlca/viewer"
	"github.com/dlca/dlca/viewer/internal/toy"
)

// Scripted ticks drive an App as a user would: a drag wipes cells, time
// runs at the chosen speed, the step key pauses and steps once.
func ExampleApp() {
	a := viewer.New(toy.NewLife(8, 8, 1, 4), viewer.Options{Speed: 30, Brush: 1, Paused: true})
	a.Layout(640, 400)
	row := func() (r []float32) {
		for x := range 6 {
			r = append(r, a.Frame().At(2, x, 0))
		}
		return r
	}
	// Press on cell (x 0, y 2) and drag to cell (x 4, y 2) with a 1-cell brush.
	fmt.Println("row 2 before the drag:", row())
	g, s := a.GridRect(), a.View().Scale
	a.Update(viewer.Tick{At: g.Min.Add(image.Pt(0, 2*s)), Down: true})
	a.Update(viewer.Tick{At: g.Min.Add(image.Pt(4*s, 2*s)), Down: true})
	fmt.Println("row 2 after the drag: ", row())

	a.Update(viewer.Tick{Do: []viewer.Action{viewer.Pause}}) // resume
	for range viewer.TicksPerSecond - 1 {
		a.Update(viewer.Tick{})
	}
	fmt.Println("steps after one second:", a.Steps())
	a.Update(viewer.Tick{Do: []viewer.Action{viewer.StepOnce}})
	fmt.Println("after the step key:", a.Steps(), "paused:", a.Paused())
	// Output:
	// row 2 before the drag: [1 1 1 1 0 1]
	// row 2 after the drag:  [0 0 0 0 0 1]
	// steps after one second: 30
	// after the step key: 31 paused: true
}
