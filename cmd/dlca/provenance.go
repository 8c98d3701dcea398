package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"

	"github.com/dlca/dlca/experiments"
)

// buildRecord is the code a run was trained by (run.json's "build"): the
// module and its version, the VCS revision the binary was built from
// (runtime/debug.ReadBuildInfo; empty for a go test or go run build, which
// records none) and the Go version.
type buildRecord struct {
	Module       string `json:"module,omitempty"`
	Version      string `json:"version,omitempty"` // "(devel)" for a build from a checkout
	Revision     string `json:"revision,omitempty"`
	RevisionTime string `json:"revision_time,omitempty"`
	Modified     bool   `json:"modified,omitempty"` // the checkout had uncommitted changes
	Go           string `json:"go"`
}

// thisBuild reads the build record of the running program.
func thisBuild() buildRecord {
	b := buildRecord{Go: runtime.Version()}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.Module, b.Version = info.Main.Path, info.Main.Version
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.time":
			b.RevisionTime = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// inputRecord is one file a run read (run.json's "inputs"): which setting
// named it ("experiment" for the experiment file itself, "init.file",
// "target.file"), its path and its SHA-256. The path of an input the
// experiment file names is relative to that file's folder, as the file
// itself gives it; that of the experiment file, and of any input of a
// built-in experiment (-set target.file=...), is relative to the run's
// folder. So a project folder moved to another machine (the experiment
// file, its pictures, the runs) keeps records that name its files.
type inputRecord struct {
	Key    string `json:"key"`
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// runInputs returns the input records of a run of cfg into folder out,
// trained from the experiment file file ("" for a built-in experiment or a
// run resumed from its checkpoint's record).
func runInputs(cfg *experiments.Config, file, out string) ([]inputRecord, error) {
	var recs []inputRecord
	add := func(key, path, base string) error {
		sum, err := fileSHA256(path)
		if err != nil {
			return fmt.Errorf("run.json: %s: %w", key, err)
		}
		recs = append(recs, inputRecord{Key: key, Path: relativeTo(base, path), SHA256: sum})
		return nil
	}
	base := out
	if file != "" {
		if err := add("experiment", file, out); err != nil {
			return nil, err
		}
		base = filepath.Dir(file)
	}
	for _, in := range []struct{ key, path string }{{"init.file", cfg.Init.File}, {"target.file", cfg.Target.File}} {
		if in.path != "" {
			if err := add(in.key, in.path, base); err != nil {
				return nil, err
			}
		}
	}
	return recs, nil
}

// portableConfig returns cfg with its input files' paths as the inputs
// record them (runInputs): relative to the experiment file's folder, or
// to the run's folder without one.
func portableConfig(cfg *experiments.Config, file, out string) *experiments.Config {
	base := out
	if file != "" {
		base = filepath.Dir(file)
	}
	c := cfg.Clone()
	for _, p := range []*string{&c.Init.File, &c.Target.File} {
		if *p != "" {
			*p = relativeTo(base, *p)
		}
	}
	return c
}

// relativeTo is path relative to folder base, with forward slashes, or
// path itself (absolute) when it has none (another drive).
func relativeTo(base, path string) string {
	absBase, err1 := filepath.Abs(base)
	absPath, err2 := filepath.Abs(path)
	if err1 != nil || err2 != nil {
		return path
	}
	rel, err := filepath.Rel(absBase, absPath)
	if err != nil {
		return absPath
	}
	return filepath.ToSlash(rel)
}

// fileSHA256 is the hex SHA-256 of the file at path.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
