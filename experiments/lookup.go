package experiments

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/dlca/dlca/dlca"
)

// Lookup returns the configuration of the experiment a command line names:
// the experiment file nameOrFile when it looks like a path (it ends in
// .toml or holds a path separator) or is no built-in experiment but an
// existing file, else the built-in experiment of that name. It does not
// resolve it. Every command that takes an experiment where a file would do
// (dlca train -experiment, dlca-view -train, -experiment of eval, check and
// export) reads it through Lookup, so they all accept the same.
func Lookup(nameOrFile string) (*Config, error) {
	if looksLikeFile(nameOrFile) {
		return Load(nameOrFile)
	}
	if _, ok := registry[nameOrFile]; !ok {
		if st, err := os.Stat(nameOrFile); err == nil && st.Mode().IsRegular() {
			return Load(nameOrFile)
		}
	}
	c, err := Builtin(nameOrFile)
	if err != nil {
		return nil, fmt.Errorf("%w, or give an experiment file (a path ending in .toml; docs/config.md)", err)
	}
	return c, nil
}

// looksLikeFile says whether a name given for an experiment is a path.
func looksLikeFile(name string) bool {
	return strings.HasSuffix(strings.ToLower(name), ".toml") || strings.ContainsRune(name, '/') || strings.ContainsRune(name, filepath.Separator)
}

// ForModel returns the experiment model m (read from the file path) is to
// be run as, checking that they fit together: the experiment named (a
// built-in name or an experiment file, see Lookup); when experiment is ""
// the one the model records (dlca train records it); else the built-in
// experiment fallback, or nil when fallback is "" too.
func ForModel(m *dlca.Model, path, experiment, fallback string) (*Experiment, error) {
	var c *Config
	var err error
	switch {
	case experiment != "":
		c, err = Lookup(experiment)
	case m.Experiment != nil:
		c, err = FromRecord(m.Experiment, path)
	case fallback != "":
		c, err = Builtin(fallback)
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	e, err := c.Resolve()
	if err != nil {
		return nil, err
	}
	if m.Config.Channels != e.Model.Channels {
		return nil, fmt.Errorf("the model has %d channels but experiment %s has %d; pass the right -experiment", m.Config.Channels, e.Name, e.Model.Channels)
	}
	return e, nil
}
