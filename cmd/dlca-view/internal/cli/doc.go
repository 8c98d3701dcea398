// Package cli is dlca-view's command line: its flags, their checks and its
// help, which it prints before the window system starts, so that
// `dlca-view -h` works on a machine without a display.
package cli
