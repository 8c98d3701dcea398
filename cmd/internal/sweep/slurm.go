package sweep

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Slurm is what a Slurm job array of a sweep asks for: per task (per run).
type Slurm struct {
	Dlca      string // the dlca executable, as the cluster's nodes see it
	Device    string // dlca train -device; gpu asks for a GPU (Gres)
	Time      string // --time, e.g. 2:00:00
	Mem       string // --mem, e.g. 4G
	CPUs      int    // --cpus-per-task; also the training's GOMAXPROCS
	Partition string // --partition ("" = the cluster's default)
	Account   string // --account ("" = the user's default)
	Gres      string // --gres ("" = gpu:1 with -device gpu, none otherwise)
	Name      string // --job-name
}

// WriteScript writes the sbatch script of plan p, whose sweep folder is
// dir (absolute): a job array with one task per run. Each task trains its
// run into runs/NAME, appending its output to logs/NAME.log: from its
// checkpoint when there is one (so a requeued or resubmitted task goes on
// where it was), not at all when the run has finished. A failure is
// recorded in the run's folder (FailedName), as the local runner does.
func (s Slurm) WriteScript(w io.Writer, dir string, p *Plan) error {
	gres := s.Gres
	if gres == "" && s.Device == "gpu" {
		gres = "gpu:1"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/bash\n")
	fmt.Fprintf(&b, "# Written by dlca sweep -emit slurm from %s: one array task per run of\n", p.Sweep)
	fmt.Fprintf(&b, "# %s. Submit with: sbatch %s\n", filepath.Join(dir, PlanName), filepath.Join(dir, ScriptName))
	fmt.Fprintf(&b, "# Where the runs stand: dlca sweep -status %s\n", dir)
	fmt.Fprintf(&b, "#SBATCH --job-name=%s\n", s.Name)
	fmt.Fprintf(&b, "#SBATCH --array=0-%d\n", len(p.Runs)-1)
	fmt.Fprintf(&b, "#SBATCH --output=%s\n", filepath.Join(dir, LogsDir, "slurm-%A_%a.out"))
	fmt.Fprintf(&b, "#SBATCH --time=%s\n", s.Time)
	fmt.Fprintf(&b, "#SBATCH --mem=%s\n", s.Mem)
	fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", s.CPUs)
	fmt.Fprintf(&b, "#SBATCH --requeue\n")
	fmt.Fprintf(&b, "# SIGTERM two minutes before the time limit: dlca train saves its checkpoint.\n")
	fmt.Fprintf(&b, "#SBATCH --signal=B:TERM@120\n")
	for _, o := range [][2]string{{"partition", s.Partition}, {"account", s.Account}, {"gres", gres}} {
		if o[1] != "" {
			fmt.Fprintf(&b, "#SBATCH --%s=%s\n", o[0], o[1])
		}
	}
	fmt.Fprintf(&b, "set -uo pipefail\n")
	fmt.Fprintf(&b, "dlca=%s\n", shellQuote(s.Dlca))
	fmt.Fprintf(&b, "sweep=%s\n", shellQuote(dir))
	fmt.Fprintf(&b, "device=%s\n", shellQuote(s.Device))
	fmt.Fprintf(&b, "export GOMAXPROCS=\"${SLURM_CPUS_PER_TASK:-1}\"\n")
	fmt.Fprintf(&b, "case \"${SLURM_ARRAY_TASK_ID:?submit this script with sbatch}\" in\n")
	for i, r := range p.Runs {
		fmt.Fprintf(&b, "%d) name=%s; settings=(%s) ;;\n", i, shellQuote(r.Name), shellJoin(p.settingArgs(r)))
	}
	fmt.Fprintf(&b, "*) echo \"task $SLURM_ARRAY_TASK_ID: this sweep has runs 0 to %d\" >&2; exit 2 ;;\n", len(p.Runs)-1)
	fmt.Fprintf(&b, "esac\n")
	b.WriteString(slurmTask)
	_, err := io.WriteString(w, b.String())
	return err
}

// slurmTask is the body of a task, the same decisions as Local.train.
// dlca train runs in the background so that the shell can pass SIGTERM
// (Slurm's, before the time limit or on scancel) on to it, and wait for
// its checkpoint.
const slurmTask = `out="$sweep/runs/$name"
log="$sweep/logs/$name.log"
mkdir -p "$sweep/logs"
if [ -f "$out/run.json" ]; then
	echo "run $name has finished already: nothing to do"
	exit 0
fi
if [ -f "$out/checkpoint.json" ]; then
	cmd=("$dlca" train -resume "$out/checkpoint.json" -device "$device")
else
	cmd=("$dlca" train "${settings[@]}" -device "$device" -out "$out")
fi
rm -f "$out/` + FailedName + `"
echo "== $(date -Iseconds): job ${SLURM_ARRAY_JOB_ID:-?} task $SLURM_ARRAY_TASK_ID on $(hostname): ${cmd[*]}" >>"$log"
"${cmd[@]}" >>"$log" 2>&1 &
pid=$!
interrupted=0
trap 'interrupted=1; kill -TERM $pid 2>/dev/null' TERM INT
wait $pid
status=$?
if [ $interrupted = 1 ]; then
	wait $pid # dlca train saves its checkpoint and exits
	status=$?
	echo "== $(date -Iseconds): interrupted (exit status $status); the task goes on from its checkpoint when requeued or resubmitted" >>"$log"
fi
if [ $status -ne 0 ] && [ $interrupted = 0 ] && [ ! -f "$out/run.json" ]; then
	mkdir -p "$out"
	echo "exit status $status at $(date -Iseconds) (job ${SLURM_ARRAY_JOB_ID:-?} task $SLURM_ARRAY_TASK_ID): $(tail -n 1 "$log"); log: $log" >"$out/` + FailedName + `"
fi
exit $status
`

// shellQuote quotes s for bash: as is when it holds only safe characters,
// else in single quotes.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-=,/:@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}
