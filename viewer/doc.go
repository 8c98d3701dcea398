// Package viewer is the logic of the desktop viewer: an App that shows a
// cellular automaton stepping on a grid, lets the user damage it with the
// mouse and drive it with keys, and, during live training, shows the latest
// model's rollout beside the loss curve.
//
// The package does not import ebiten, so that its tests run on machines
// without a display: an App composes every frame itself into an image.RGBA
// (the grid through package painter, text, the loss curve, the help overlay)
// and reads the user through the small Input interface. Package
// viewer/window puts an App into an ebiten window; its input and screen are
// the only window-system code.
//
// Conventions:
//   - Grid coordinates are image.Point{X: column, Y: row}; screen
//     coordinates are pixels of the App's frame, origin top-left.
//   - Time advances in ticks: one Update call is one tick, and the App runs
//     Speed steps per TicksPerSecond ticks, so a run is reproducible tick for
//     tick whatever the frame rate.
//   - The automaton is seen through the Simulator interface and a training
//     run through Trainer; adapters to package dlca and bptt live in dlca.go.
//   - Everything the training goroutine hands to the App goes through one
//     mutex-guarded snapshot (live.go); Update and Render never wait for an
//     iteration.
package viewer
