package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/dlca/dlca/internal/memlimit"
	"github.com/dlca/dlca/internal/safefile"
)

// errInterrupted is what a command returns when Ctrl-C or SIGTERM stops it
// before it has written its output.
var errInterrupted = errors.New("interrupted")

// interrupted returns errInterrupted once ctx is done (main cancels it on
// SIGINT and SIGTERM), nil before. Long loops call it at every step.
func interrupted(ctx context.Context) error {
	if ctx.Err() != nil {
		return errInterrupted
	}
	return nil
}

// writeOutput writes a command's output file with safefile.Write, and
// abandons it (no file under the final name, no temporary left) when ctx
// is done by the time write returns.
func writeOutput(ctx context.Context, path string, write func(io.Writer) error) error {
	err := safefile.Write(path, func(w io.Writer) error {
		if err := write(stopWriter{ctx, w}); err != nil {
			return err
		}
		return interrupted(ctx)
	})
	if errors.Is(err, errInterrupted) {
		return errInterrupted
	}
	return err
}

// stopWriter is a writer that fails with errInterrupted once ctx is done,
// so that a long write (a testbench of millions of steps) stops at its
// next line.
type stopWriter struct {
	ctx context.Context
	w   io.Writer
}

func (s stopWriter) Write(p []byte) (int, error) {
	if err := interrupted(s.ctx); err != nil {
		return 0, err
	}
	return s.w.Write(p)
}

// checkOutputSize refuses, before anything is written, an output (given by
// flag) of about need bytes larger than maxOutput (a size such as 1GiB, ""
// for none, given by -max-output) or than the free space of the disk path
// is on (where that can be told: not for standard output or a device).
func checkOutputSize(flag, path string, need int64, maxOutput string) error {
	if maxOutput != "" {
		limit, err := memlimit.ParseBytes(maxOutput)
		if err != nil {
			return fmt.Errorf("-max-output: %w", err)
		}
		if need > limit {
			return fmt.Errorf("%s %s would be up to about %s but -max-output is %s: write fewer steps, or raise -max-output", flag, path, memlimit.FormatBytes(need), memlimit.FormatBytes(limit))
		}
	}
	if safefile.IsStdout(path) {
		return nil
	}
	if free, ok := freeDisk(filepath.Dir(path)); ok && need > free {
		return fmt.Errorf("%s %s would be up to about %s but its disk has %s free: write fewer steps, or free some space", flag, path, memlimit.FormatBytes(need), memlimit.FormatBytes(free))
	}
	return nil
}

// notInput returns an error when the output path out, given by flag,
// names the same file as in, the command's input described by what:
// writing the output would destroy the input.
func notInput(flag, out, what, in string) error {
	if safefile.Same(out, in) {
		return fmt.Errorf("%s %s is the %s %s: writing it would destroy the input; name another file", flag, out, what, in)
	}
	return nil
}

// checkOutput returns an error, before a command does its work, when its
// output out (given by flag) cannot be written (safefile.Check: a
// directory, say) or names its input in, described by what.
func checkOutput(flag, out, what, in string) error {
	if err := safefile.Check(out); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return notInput(flag, out, what, in)
}

// infoWriter is where a command prints what it did: stdout, or stderr when
// its output file is standard output, so the two do not mix.
func infoWriter(out string, stdout, stderr io.Writer) io.Writer {
	if safefile.IsStdout(out) {
		return stderr
	}
	return stdout
}
