package main

import (
	"strings"
	"testing"
)

// TestRunErrors: bad input gives an error that says what is wrong, never a
// panic.
func TestRunErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-model", "resnet"}, "unknown model"},
		{[]string{"-epochs", "0"}, "must be positive"},
		{[]string{"-data", t.TempDir()}, "dataset-fashion-mnist"},
		{[]string{"stray"}, "unexpected argument"},
		{[]string{"-batch", "x"}, "invalid value"},
	}
	for _, c := range cases {
		err := run(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("run(%q) = %v, want an error mentioning %q", c.args, err, c.want)
		}
	}
	if err := run([]string{"-help"}); err != nil {
		t.Fatalf("-help: %v", err)
	}
}
