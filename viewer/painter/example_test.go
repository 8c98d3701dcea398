package painter_test

import (
	"fmt"

	"github.com/dlca/dlca/viewer/painter"
)

func ExamplePaint() {
	// A 2x2 checkerboard in channel 0, two pixels per cell side.
	f := painter.Frame{H: 2, W: 2, C: 1, Cells: []float32{1, 0, 0, 1}}
	img := painter.Paint(f, painter.Options{Scale: 2})
	for y := 0; y < img.Rect.Dy(); y++ {
		for x := 0; x < img.Rect.Dx(); x++ {
			if img.RGBAAt(x, y).R == 255 {
				fmt.Print("#")
			} else {
				fmt.Print(".")
			}
		}
		fmt.Println()
	}
	// Output:
	// ##..
	// ##..
	// ..##
	// ..##
}
