package main

import (
	"bytes"
	"io"
	"os"
	"testing"
)

// TestIsTerminal: /dev/null is a character device but not a terminal, so
// progress written there does not redraw lines; nor is a buffer or a file.
func TestIsTerminal(t *testing.T) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer null.Close()
	file, err := os.Create(t.TempDir() + "/log")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for name, w := range map[string]io.Writer{"/dev/null": null, "a regular file": file, "a buffer": new(bytes.Buffer)} {
		if isTerminal(w) {
			t.Errorf("%s is taken for a terminal", name)
		}
	}
}
