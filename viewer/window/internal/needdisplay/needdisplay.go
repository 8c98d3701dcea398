// Package needdisplay stops a program that has no display to open windows
// on with a message saying what to do, instead of the panic that ebiten's
// initialisation gives. Import it for its side effect before ebiten (package
// window does): Go initialises packages in import-path order where the
// dependencies allow, and this path sorts before github.com/hajimehoshi.
package needdisplay

import (
	"fmt"
	"os"
	"runtime"
)

func init() {
	switch runtime.GOOS {
	case "windows", "darwin", "ios", "android", "js":
		return // no X11 needed
	}
	if os.Getenv("DISPLAY") == "" && !asksForHelp(os.Args[1:]) {
		fmt.Fprintf(os.Stderr, "%s: no display: DISPLAY is unset. Run it in a desktop session, or without a screen under Xvfb: xvfb-run -a %s ...\n", os.Args[0], os.Args[0])
		os.Exit(1)
	}
}

// asksForHelp reports whether args hold -h or -help (one or two dashes)
// before any "--".
func asksForHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--h", "--help":
			return true
		}
	}
	return false
}
