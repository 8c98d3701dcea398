package main

import (
	"context"
	"io"
)

func runEval(ctx context.Context, args []string, stdout, stderr io.Writer) error    { return nil }
func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error   { return nil }
func runResults(ctx context.Context, args []string, stdout, stderr io.Writer) error { return nil }
func runList(ctx context.Context, args []string, stdout, stderr io.Writer) error    { return nil }
