package runctl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/dlca/dlca/bptt"
)

// finalOutputs are the files of a finished run that a new run would replace.
var finalOutputs = []string{"model.json", "run.json"}

// refuseExisting refuses, unless -force, to start a run that would replace
// another run's work: the checkpoint at path (interrupted or finished) or,
// without one, a finished run's model and record in -out. Resuming (from
// not nil) is refused only where it would replace a later checkpoint, or
// one of another run, with this run's.
func (o *LongRun) refuseExisting(path string, from *bptt.Checkpoint) error {
	if o.Force {
		return nil
	}
	st, err := os.Stat(path)
	if err != nil {
		if from != nil {
			return nil
		}
		for _, name := range finalOutputs {
			if _, err := os.Stat(filepath.Join(o.Out, name)); err == nil {
				return fmt.Errorf("%s already holds a trained model (%s, without a checkpoint): choose another -out, or add -force to replace it", o.Out, name)
			}
		}
		return nil
	}
	there, err := bptt.LoadCheckpoint(path)
	if err != nil {
		return fmt.Errorf("%s exists and is not a checkpoint to replace (%v): move it away, or add -force to replace it", path, err)
	}
	if from == nil {
		if there.Iteration == there.Iterations {
			return fmt.Errorf("%s already holds a finished run (checkpoint %s, iteration %d of %d): train it further with: %s -iterations N (N > %d); or add -force to start over, replacing it",
				o.Out, path, there.Iteration, there.Iterations, o.ResumeCommand(path), there.Iterations)
		}
		return fmt.Errorf("%s already holds an unfinished run (checkpoint %s, iteration %d of %d): go on with: %s; or add -force to start over, replacing it",
			o.Out, path, there.Iteration, there.Iterations, o.ResumeCommand(path))
	}
	if same, _ := sameFile(st, o.Resume); same {
		return nil
	}
	switch {
	case there.Label != from.Label || there.Seed != from.Seed || there.Model.Config.Seed != from.Model.Config.Seed:
		return fmt.Errorf("%s holds the checkpoint of another run (%s, seed %d, wiring seed %d): choose another -out or -checkpoint, or add -force to replace it",
			path, there.Label, there.Seed, there.Model.Config.Seed)
	case there.Iteration > from.Iteration:
		return fmt.Errorf("%s is at iteration %d, later than the checkpoint %s you resume (iteration %d): resume from %s instead, or add -force to replace it with the earlier one",
			path, there.Iteration, o.Resume, from.Iteration, path)
	}
	return nil
}

// sameFile reports whether path is the file st describes.
func sameFile(st fs.FileInfo, path string) (bool, error) {
	other, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	return os.SameFile(st, other), nil
}
