// Package window shows a viewer.App in an ebiten window: it hands the App
// the window's size, the keyboard and mouse (through viewer.Input), and puts
// the App's rendered picture on the screen unchanged, pixel for pixel.
//
// This is the only package of the viewer that imports ebiten. A program that
// imports it cannot start without a display (ebiten connects to the window
// system when the program starts), which is why packages viewer and
// viewer/painter do not import it, and why the viewer's tests drive a
// separately built program (viewer/internal/remote) when they need a screen.
package window
