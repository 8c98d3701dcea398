// Package gowasm builds a Go package of this module to WebAssembly with the
// Go toolchain (GOOS=js GOARCH=wasm go build), for dlca export's training
// page, mnist -export-html's MNIST page and their tests: a command's work,
// kept out of the libraries (the pages' packages only write what they are
// given). An interrupted
// build stops as on Ctrl-C and leaves nothing in TMPDIR.
package gowasm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Build compiles the package pkg (an import path of this module) to
// WebAssembly with the Go toolchain (GOOS=js GOARCH=wasm go build), from
// this module's sources: it needs go on the PATH and the working directory
// inside the dlca repository. It returns the binary and the toolchain's
// wasm_exec.js, which loads it in a page. The binary is built when a page
// is exported, never stored in the repository.
func Build(ctx context.Context, pkg string) (wasm, wasmExec []byte, err error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return nil, nil, fmt.Errorf("gowasm: %s (a web page's trainer) is built with the Go toolchain, and go is not on the PATH (install Go 1.26: https://go.dev/dl/)", pkg)
	}
	wasmEnv := append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	list := exec.CommandContext(ctx, gobin, "list", pkg)
	list.Env = wasmEnv
	if msg, err := list.CombinedOutput(); err != nil {
		return nil, nil, fmt.Errorf("gowasm: %s (a web page's trainer) is built from the dlca sources: run this command inside the dlca repository (go list: %v: %s)", pkg, err, bytes.TrimSpace(msg))
	}
	goroot, err := exec.CommandContext(ctx, gobin, "env", "GOROOT").Output()
	if err != nil {
		return nil, nil, fmt.Errorf("gowasm: go env GOROOT: %v", err)
	}
	wasmExec, err = os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return nil, nil, fmt.Errorf("gowasm: the Go toolchain's wasm_exec.js: %w", err)
	}
	dir, err := os.MkdirTemp("", "dlca-trainer")
	if err != nil {
		return nil, nil, fmt.Errorf("gowasm: %w", err)
	}
	defer os.RemoveAll(dir)
	wasmPath := filepath.Join(dir, "trainer.wasm")
	cmd := exec.CommandContext(ctx, gobin, "build", "-trimpath", "-o", wasmPath, pkg)
	// The go command's work folder goes into dir too (GOTMPDIR), so that
	// removing dir leaves nothing in TMPDIR whatever happens to the build;
	// when ctx is done the build is interrupted as Ctrl-C would, so that
	// it cleans up, and killed only if it has not ended a while later.
	cmd.Env = append(wasmEnv, "GOTMPDIR="+dir)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	if msg, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return nil, nil, fmt.Errorf("gowasm: building %s for WebAssembly: %w", pkg, ctx.Err())
		}
		return nil, nil, fmt.Errorf("gowasm: building %s for WebAssembly: %v\n%s", pkg, err, msg)
	}
	if wasm, err = os.ReadFile(wasmPath); err != nil {
		return nil, nil, fmt.Errorf("gowasm: %w", err)
	}
	return wasm, wasmExec, nil
}
