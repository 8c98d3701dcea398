// Command dlca-view is the desktop viewer of differentiable logic cellular
// automata: it trains an experiment (built-in or an experiment file) live
// and shows the latest model's rollout beside the loss curve, or replays a
// saved model, as the experiment it records, on a grid of any size, hard or
// soft, sync or async. Drag the mouse to wipe cells; F1 lists the keys. See
// docs/viewer.md.
//
// Usage:
//
//	dlca-view -train checkerboard-small [-iterations N] [-out DIR]
//	dlca-view -train my.toml
//	dlca-view -model out/model.json [-experiment checkerboard|my.toml] [-size 64] [-hard] [-async]
//
// It needs a display (an X server or Wayland); under Xvfb,
// -screenshot-after N -screenshot FILE writes a picture and exits.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/dlca/dlca/cmd/dlca-view/internal/cli"
	"github.com/dlca/dlca/viewer"
	"github.com/dlca/dlca/viewer/window"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	f, err := cli.Parse(args, stdout, stderr)
	if err == nil {
		err = view(ctx, f, stdout, stderr)
	}
	switch {
	case err == nil, errors.Is(err, cli.ErrHelp):
		return 0
	case errors.Is(err, cli.ErrUsage):
		return 2
	default:
		fmt.Fprintln(stderr, "dlca-view:", err)
		return 1
	}
}

// view builds the App for the flags and runs its window.
func view(ctx context.Context, f *cli.Flags, stdout, stderr io.Writer) error {
	opt := viewer.Options{
		Speed: f.Speed, Paused: f.Paused,
		Mode: viewer.Mode{Hard: f.Hard, Async: f.Async},
		View: painterOptions(f), ScreenshotDir: f.ShotDir,
	}
	var a *viewer.App
	var err error
	var title, note string
	if f.Train != "" {
		a, title, err = liveApp(ctx, f, opt, &note, stderr)
	} else {
		a, title, err = replayApp(f, opt)
	}
	if err != nil {
		return err
	}
	err = window.Run(a, window.Config{
		Title: title, Width: f.Width, Height: f.Height,
		ScreenshotAfter: f.ShotAfter, ScreenshotPath: f.ShotPath,
		Stop: ctx.Done(),
	})
	a.Wait()
	if err != nil {
		return err
	}
	if _, terr, live := a.Training(); live {
		if terr != nil {
			return terr
		}
		fmt.Fprintf(stdout, "model saved to %s\n", modelPath(f))
		if note != "" {
			fmt.Fprintln(stdout, note)
		}
	}
	if f.ShotPath != "" {
		fmt.Fprintf(stdout, "screenshot written to %s\n", f.ShotPath)
	}
	return nil
}
