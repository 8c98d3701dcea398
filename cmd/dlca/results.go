package main

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/dlca/dlca/cmd/internal/runctl"
	"github.com/dlca/dlca/dlca"
	"github.com/dlca/dlca/experiments"
	"github.com/dlca/dlca/internal/jsonfile"
	"github.com/dlca/dlca/internal/safefile"
)

func runResults(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("dlca results", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "markdown file to write (required; - for standard output)")
	img := fs.String("img", "", "directory to copy the pictures of each experiment's first run into, a change to the paper's method counting apart (none if empty)")
	force := fs.Bool("force", false, "replace an existing -out page and existing pictures in -img")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: dlca results -out FILE [-force] [-img DIR] RUNDIR...\n       dlca results SWEEPDIR   (writes SWEEPDIR/results.md)\n\nRUNDIR is a directory written by dlca train (it holds run.json; other paths are\nskipped with a note); a sweep's folder (dlca sweep -out) stands for its finished runs.")
		fs.PrintDefaults()
	}
	if err := runctl.ParseFlags(fs, args, stdout); errors.Is(err, flag.ErrHelp) {
		return err
	} else if err != nil {
		return errUsage
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errUsage
	}
	dirs, sweeps, err := expandSweeps(fs.Args(), stderr)
	if err != nil {
		return err
	}
	if *out == "" && fs.NArg() == 1 && len(sweeps) == 1 {
		// A sweep's page is the sweep's own, regenerated each time.
		*out, *force = filepath.Join(sweeps[0], "results.md"), true
	}
	if *out == "" {
		return errors.New("-out is required: the markdown file to write (docs/RESULTS.md for this repository's page, - to print it)")
	}
	if err := notExisting("-out", *out, *force); err != nil {
		return err
	}
	if err := safefile.Check(*out); err != nil {
		return fmt.Errorf("-out: %w", err)
	}
	// Read every run and plan every copy before writing anything, so that a
	// damaged run or a refused output leaves no file or folder behind.
	var runs []runRecord
	var runDirs []string // runs[i]'s folder
	var copies []pictureCopy
	pictures := map[int][]string{}
	for _, dir := range dirs {
		if err := interrupted(ctx); err != nil {
			return err
		}
		r, err := readRun(dir)
		if errors.Is(err, errNotRun) {
			// A glob such as out/* also names eval's pictures and other
			// folders: say so and go on.
			fmt.Fprintf(stderr, "dlca results: skipping %v\n", err)
			continue
		}
		if err != nil {
			return err
		}
		if err := notInput("-out", *out, "run record", filepath.Join(dir, "run.json")); err != nil {
			return err
		}
		// Pictures of the first run of each experiment (labelOf: a change
		// to the paper's method counts apart) only, to keep the page small
		// enough to commit.
		if *img != "" && !slices.ContainsFunc(runs, func(q runRecord) bool { return labelOf(q) == labelOf(r) }) {
			cs, links, err := planPictures(dir, *img, filepath.Dir(*out), picturePrefix(r))
			if err != nil {
				return err
			}
			copies = append(copies, cs...)
			pictures[len(runs)] = links
		}
		runs, runDirs = append(runs, r), append(runDirs, dir)
	}
	if len(runs) == 0 {
		return fmt.Errorf("no training run among the %d folders given: each needs the run.json that dlca train writes; nothing written", fs.NArg())
	}
	for _, c := range copies {
		if err := notExisting("-img", c.dst, *force); err != nil {
			return err
		}
		if err := checkOutput("-img", c.dst, "picture", c.src); err != nil {
			return err
		}
	}
	if len(copies) > 0 {
		if err := os.MkdirAll(*img, 0o755); err != nil {
			return fmt.Errorf("cannot create the -img directory: %w", err)
		}
	}
	for _, c := range copies {
		if err := interrupted(ctx); err != nil {
			return err
		}
		if err := c.copy(ctx); err != nil {
			return err
		}
	}
	var buf bytes.Buffer
	if len(sweeps) == 1 && fs.NArg() == 1 && *img == "" {
		// One sweep: a page that answers it (sweep's own keys, groups, plots).
		if err := writeSweepPage(&buf, sweeps[0], runDirs, runs, *out, *force); err != nil {
			return err
		}
	} else {
		writeResults(&buf, runs, pictures)
	}
	if err := writeOutput(ctx, *out, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return err
	}
	fmt.Fprintf(infoWriter(*out, stdout, stderr), "wrote %s (%d runs)\n", *out, len(runs))
	return nil
}

// errNotRun is readRun's error for a path that is not a training run's
// folder at all (not a folder, or no run.json in it), as opposed to a run
// whose record is damaged.
var errNotRun = errors.New("not a training run folder")

// expandSweeps returns the run folders args stand for: a sweep's folder
// stands for its finished runs (what the others are doing is said on
// stderr), any other folder for itself. sweeps are the sweeps' folders.
func expandSweeps(args []string, stderr io.Writer) (dirs, sweeps []string, err error) {
	for _, a := range args {
		runs, summary, ok, err := sweepRuns(a)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			dirs = append(dirs, a)
			continue
		}
		fmt.Fprintln(stderr, summary)
		if len(runs) == 0 {
			return nil, nil, fmt.Errorf("sweep %s has no finished run yet: dlca sweep -status %s shows where they stand", a, a)
		}
		dirs, sweeps = append(dirs, runs...), append(sweeps, a)
	}
	return dirs, sweeps, nil
}

// readRun reads the run.json of run directory dir, strictly, and checks the
// experiment name it holds, which becomes part of picture file names.
func readRun(dir string) (runRecord, error) {
	var r runRecord
	f, err := os.Open(filepath.Join(dir, "run.json"))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return r, fmt.Errorf("%s: %w (no run.json in it)", dir, errNotRun)
	}
	if err != nil {
		return r, fmt.Errorf("%s: cannot read its run.json: %w", dir, err)
	}
	defer f.Close()
	if err := jsonfile.Decode(f, &r); err != nil {
		return r, fmt.Errorf("%s: run.json is damaged: %w", dir, err)
	}
	if err := safefile.CheckName("run.json names experiment", r.Experiment); err != nil {
		return r, fmt.Errorf("%s: %w", dir, err)
	}
	return r, nil
}

// streamOf is the random stream run r trained with (dlca.Streams): the one
// its configuration records, pcg for a run whose run.json records none
// (older runs, all of which used it).
func streamOf(r runRecord) string {
	if r.Config == nil {
		return dlca.StreamPCG
	}
	return cmp.Or(r.Config.RNG, dlca.StreamPCG)
}

// methodChange is an iteration from which a run trains with a change to
// the paper's method: what the change is, in words and in a file name.
type methodChange struct {
	iteration int
	what      string
	slug      string
}

// methodChanges returns run r's changes to the paper's method
// (straight-through, the state penalty), the one place that reads them for
// the page's labels, the pictures' names and the loss plot's marks.
func methodChanges(r runRecord) []methodChange {
	c := r.Config
	if c == nil {
		return nil
	}
	var cs []methodChange
	if c.StraightThroughFrom > 0 {
		cs = append(cs, methodChange{c.StraightThroughFrom, "straight-through", "straight"})
	}
	if c.StatePenalty > 0 {
		from := max(c.StatePenaltyFrom, 1)
		cs = append(cs, methodChange{from, fmt.Sprintf("state penalty %g", c.StatePenalty), fmt.Sprintf("penalty%gfrom", c.StatePenalty)})
	}
	return cs
}

// labelOf names run r's experiment in the page's rows: its name, with the
// changes to the paper's method it trained with, if any (straight-through
// from an iteration, a state penalty), so that such runs are never counted
// as the paper's.
func labelOf(r runRecord) string {
	label := r.Experiment
	for _, c := range methodChanges(r) {
		label += fmt.Sprintf(", %s from %d", c.what, c.iteration)
	}
	return label
}

// picturePrefix starts the names of run r's pictures: the experiment and
// seeds, the stream where it is not the default (so that the names of
// pictures of runs from before the streams stay as they were), and the
// changes to the paper's method, if any.
func picturePrefix(r runRecord) string {
	prefix := fmt.Sprintf("%s-seed%d-wiring%d", r.Experiment, r.Seed, r.WiringSeed)
	if s := streamOf(r); s != dlca.StreamPCG {
		prefix = r.Experiment + "-" + s + prefix[len(r.Experiment):]
	}
	for _, c := range methodChanges(r) {
		prefix += fmt.Sprintf("-%s%d", c.slug, c.iteration)
	}
	return prefix
}

// notExisting returns an error when path, given by flag, is an existing
// file and force is not set.
func notExisting(flag, path string, force bool) error {
	if force || safefile.IsStdout(path) {
		return nil
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("%s: %s exists; pass -force to replace it", flag, path)
	}
	return nil
}

// writeResults renders the runs as the markdown of docs/RESULTS.md: each of
// the paper's experiments gets the paper's row and its runs' rows (or one
// saying there is none), then come other experiments' runs, then the
// pictures of each run (pictures[i] are run i's).
func writeResults(w io.Writer, runs []runRecord, pictures map[int][]string) {
	fmt.Fprintln(w, "# Results")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Generated by `dlca results` from the `run.json` of each training run (`dlca train -out DIR`);")
	fmt.Fprintln(w, "do not edit by hand. Hard loss = wrong bits of the loss channels when the argmax circuit runs on the")
	fmt.Fprintln(w, "same batch; active gates = gates whose argmax is neither A nor B, over every layer and kernel.")
	fmt.Fprintln(w, "Checks run the hard circuit from a fixed random state (see docs/training.md); docs/experiments.md")
	fmt.Fprintln(w, "describes each experiment and check and says in words what these runs show. Stream = the random")
	fmt.Fprintln(w, "stream of the wiring, batches, fire masks and the checks' draws: jax is the paper's notebook's (its")
	fmt.Fprintln(w, "seed 23 is the paper's run), pcg this project's own. Where the paper reports a check's figure, a")
	fmt.Fprintln(w, "run's stands beside it with the difference. A row whose experiment names a change to the method")
	fmt.Fprintln(w, "(straight-through) is not the paper's method.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| experiment | stream | batch seed | wiring seed | iterations | first hard loss 0 | final soft loss | final hard loss | active gates | wall time | device | checks |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	var order []int
	for _, p := range experiments.Paper {
		fmt.Fprintf(w, "| **%s (paper)** | %s | 23 | 23 | %d | %s | | %s | %s | | | %s |\n", p.Experiment, dlca.StreamJAX, p.Iterations, p.FirstHardZero, p.HardLoss, p.ActiveGates, p.Checks)
		n := len(order)
		for i, r := range runs {
			if r.Experiment == p.Experiment {
				order = append(order, i)
			}
		}
		if len(order) == n {
			fmt.Fprintf(w, "| %s | | | | | no saved run | | | | | | not run |\n", p.Experiment)
		}
		writeRows(w, runs, order[n:])
	}
	n := len(order)
	for i, r := range runs {
		if _, ok := experiments.PaperFor(r.Experiment); !ok {
			order = append(order, i)
		}
	}
	writeRows(w, runs, order[n:])
	writeSummary(w, runs, order)
	if len(pictures) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "## Pictures")
	for _, i := range order {
		if links := pictures[i]; len(links) > 0 {
			fmt.Fprintf(w, "\n### %s, %s stream, batch seed %d, wiring seed %d\n\n%s\n", labelOf(runs[i]), streamOf(runs[i]), runs[i].Seed, runs[i].WiringSeed, strings.Join(links, "\n"))
		}
	}
}

// writeSummary writes, for each experiment (labelOf), stream and iteration count with
// runs (in the order of which), how its runs went over their seeds: how many
// reached hard loss 0, how many passed every check, the best final hard loss
// and the range of active gates. The paper itself asks for results over
// several seeds, since not every seed converges.
func writeSummary(w io.Writer, runs []runRecord, which []int) {
	type group struct {
		experiment, stream string
		iterations         int
	}
	groupOf := func(r runRecord) group { return group{labelOf(r), streamOf(r), r.Iterations} }
	var groups []group
	for _, i := range which {
		if g := groupOf(runs[i]); !slices.Contains(groups, g) {
			groups = append(groups, g)
		}
	}
	if len(groups) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "## Over seeds")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| experiment | stream | iterations | runs | reached hard loss 0 | passed every check | best final hard loss (wiring seeds) | active gates |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, g := range groups {
		n, zero, passed := 0, 0, 0
		best, lo, hi := -1.0, -1, -1
		var bestSeeds []string
		for _, i := range which {
			r := runs[i]
			if groupOf(r) != g {
				continue
			}
			n++
			if r.FirstHard0 > 0 {
				zero++
			}
			if len(r.Checks) > 0 && !slices.ContainsFunc(r.Checks, func(c experiments.CheckResult) bool { return !c.Passed }) {
				passed++
			}
			seed := fmt.Sprint(r.WiringSeed)
			switch h := r.Final.HardLoss; {
			case best < 0 || h < best:
				best, bestSeeds = h, []string{seed}
			case h == best && !slices.Contains(bestSeeds, seed):
				bestSeeds = append(bestSeeds, seed)
			}
			if a := r.Final.ActiveGates; lo < 0 || a < lo {
				lo = a
			}
			hi = max(hi, r.Final.ActiveGates)
		}
		fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %d | %.0f (%s) | %d to %d |\n", g.experiment, g.stream, g.iterations, n, zero, passed, best, strings.Join(bestSeeds, ", "), lo, hi)
	}
}

// writeRows writes the table rows of runs[i] for every i in which.
func writeRows(w io.Writer, runs []runRecord, which []int) {
	for _, i := range which {
		r := runs[i]
		first := "never"
		if r.FirstHard0 > 0 {
			first = fmt.Sprint(r.FirstHard0)
		}
		var checks []string
		for _, c := range r.Checks {
			checks = append(checks, checkCell(r.Experiment, c))
		}
		fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %s | %.3f | %.0f | %d | %.0f s | %s | %s |\n",
			labelOf(r), streamOf(r), r.Seed, r.WiringSeed, r.Iterations, first, r.Final.SoftLoss, r.Final.HardLoss,
			r.Final.ActiveGates, trainingSeconds(r), r.Device+", "+cmp.Or(r.Machine, "machine not recorded"), strings.Join(checks, "; "))
	}
}

// trainingSeconds is a run's training time: its wall time, or the sum of its
// iterations' times when that is larger (a run resumed from a checkpoint
// records the wall time of its last part only).
func trainingSeconds(r runRecord) float64 {
	return max(r.WallSeconds, iterationSeconds(r.Metrics))
}
