package sweep

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/dlca/dlca/bptt"
)

// State is where a run of a sweep stands, read from its folder.
type State int

const (
	Missing    State = iota // not started: its folder holds nothing of a training
	Unfinished              // started: a checkpoint, no record yet (running, interrupted or requeued)
	Failed                  // its last attempt failed (FailedName), with no record
	Finished                // dlca train wrote its record (run.json)
)

func (s State) String() string {
	return [...]string{"missing", "unfinished", "failed", "finished"}[s]
}

// RunStatus is one run's state and what its folder says about it.
type RunStatus struct {
	Run
	Dir    string // its output folder
	State  State
	Detail string // the checkpoint's iteration, or why it failed
}

// Status reads the state of every run of plan p in sweep folder dir.
func Status(dir string, p *Plan) []RunStatus {
	var out []RunStatus
	for _, r := range p.Runs {
		s := RunStatus{Run: r, Dir: RunDir(dir, r.Name)}
		s.State, s.Detail = stateOf(s.Dir)
		out = append(out, s)
	}
	return out
}

// stateOf reads the state of the run whose folder is out.
func stateOf(out string) (State, string) {
	if exists(filepath.Join(out, recordName)) {
		return Finished, ""
	}
	if b, err := os.ReadFile(filepath.Join(out, FailedName)); err == nil {
		return Failed, strings.TrimSpace(string(b))
	}
	ckpt := filepath.Join(out, checkpointName)
	if !exists(ckpt) {
		return Missing, ""
	}
	c, err := bptt.LoadCheckpoint(ckpt)
	if err != nil {
		return Unfinished, fmt.Sprintf("checkpoint unreadable: %v", err)
	}
	if c.Iteration == c.Iterations {
		return Unfinished, fmt.Sprintf("trained (%d iterations), checks and pictures not written", c.Iterations)
	}
	return Unfinished, fmt.Sprintf("checkpoint at iteration %d of %d", c.Iteration, c.Iterations)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// Count returns how many runs are in each state.
func Count(runs []RunStatus) map[State]int {
	n := map[State]int{}
	for _, r := range runs {
		n[r.State]++
	}
	return n
}

// Summary is one line counting the runs by state.
func Summary(runs []RunStatus) string {
	n := Count(runs)
	return fmt.Sprintf("%d runs: %d finished, %d failed, %d unfinished, %d missing",
		len(runs), n[Finished], n[Failed], n[Unfinished], n[Missing])
}

// WriteStatus writes a table of the runs' states and the summary to w.
func WriteStatus(w io.Writer, runs []RunStatus) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tstate\tdetail")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Name, r.State, r.Detail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, Summary(runs))
	return err
}
