package window

import (
	"fmt"
	"image"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/dlca/dlca/viewer"
)

// devices reads the keyboard and mouse; keys come from viewer.Bindings.
type devices struct {
	keys []ebiten.Key // keys[i] triggers viewer.Bindings[i]
}

func newDevices() *devices {
	d := &devices{}
	for _, b := range viewer.Bindings {
		var k ebiten.Key
		if err := k.UnmarshalText([]byte(b.Key)); err != nil {
			panic(fmt.Sprintf("window: binding of %q: %v", b.Help, err))
		}
		d.keys = append(d.keys, k)
	}
	return d
}

// Actions implements viewer.Input.
func (d *devices) Actions() []viewer.Action {
	var acts []viewer.Action
	for i, k := range d.keys {
		if inpututil.IsKeyJustPressed(k) {
			acts = append(acts, viewer.Bindings[i].Action)
		}
	}
	return acts
}

// Pointer implements viewer.Input.
func (d *devices) Pointer() (image.Point, bool) {
	x, y := ebiten.CursorPosition()
	return image.Pt(x, y), ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft)
}
