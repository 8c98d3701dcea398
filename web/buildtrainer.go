//go:build !js

// BuildTrainer runs the Go toolchain, which a browser has not: the trainer
// itself (web/trainwasm, GOOS=js) links this package without it, and
// without os/exec.

package web

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

// trainerPackage is the trainer's import path, built by BuildTrainer.
const trainerPackage = "github.com/dlca/dlca/web/trainwasm"

// BuildTrainer compiles the trainer to WebAssembly with the Go toolchain
// (GOOS=js GOARCH=wasm go build), from this module's sources: it needs go
// on the PATH and the working directory inside the dlca repository. The
// binary is built when a page is exported, never stored in the repository.
func BuildTrainer(ctx context.Context) (*Trainer, error) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		return nil, fmt.Errorf("web: the training page builds its trainer with the Go toolchain, and go is not on the PATH (install Go 1.26: https://go.dev/dl/)")
	}
	wasmEnv := append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	list := exec.CommandContext(ctx, gobin, "list", trainerPackage)
	list.Env = wasmEnv
	if msg, err := list.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("web: the training page builds its trainer from the dlca sources: run this command inside the dlca repository (go list %s: %v: %s)", trainerPackage, err, bytes.TrimSpace(msg))
	}
	goroot, err := exec.CommandContext(ctx, gobin, "env", "GOROOT").Output()
	if err != nil {
		return nil, fmt.Errorf("web: go env GOROOT: %v", err)
	}
	wasmExec, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", "wasm_exec.js"))
	if err != nil {
		return nil, fmt.Errorf("web: the Go toolchain's wasm_exec.js: %w", err)
	}
	dir, err := os.MkdirTemp("", "dlca-trainer")
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	defer os.RemoveAll(dir)
	wasmPath := filepath.Join(dir, "trainer.wasm")
	cmd := exec.CommandContext(ctx, gobin, "build", "-trimpath", "-o", wasmPath, trainerPackage)
	// The go command's work folder goes into dir too (GOTMPDIR), so that
	// removing dir leaves nothing in TMPDIR whatever happens to the build;
	// when ctx is done the build is interrupted as Ctrl-C would, so that
	// it cleans up, and killed only if it has not ended a while later.
	cmd.Env = append(wasmEnv, "GOTMPDIR="+dir)
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 10 * time.Second
	if msg, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("web: building the trainer for WebAssembly: %w", ctx.Err())
		}
		return nil, fmt.Errorf("web: building the trainer for WebAssembly: %v\n%s", err, msg)
	}
	wasm, err := os.ReadFile(wasmPath)
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	return &Trainer{Wasm: wasm, WasmExec: wasmExec}, nil
}
