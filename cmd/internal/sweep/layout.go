package sweep

import (
	"path/filepath"
	"slices"
)

// The parts of a sweep's folder (see the package doc).
const (
	RunsDir    = "runs"
	LogsDir    = "logs"
	ScriptName = "sweep.sbatch"
	// FailedName is the file a run's folder holds when its last attempt
	// failed: the exit status and where the log is. A new attempt removes it.
	FailedName = "sweep-failed.txt"
	// What dlca train leaves in a run's folder.
	recordName     = "run.json"
	checkpointName = "checkpoint.json"
)

// RunDir is run name's output folder in sweep folder dir.
func RunDir(dir, name string) string { return filepath.Join(dir, RunsDir, name) }

// LogPath is run name's log in sweep folder dir.
func LogPath(dir, name string) string { return filepath.Join(dir, LogsDir, name+".log") }

// TrainArgs is the dlca train command line (without the program) that
// starts run r of plan p from nothing, into out; device is -device's value.
func (p *Plan) TrainArgs(r Run, out, device string) []string {
	return slices.Concat([]string{"train"}, p.settingArgs(r), []string{"-device", device, "-out", out})
}

// settingArgs are the dlca train flags that give run r's base and settings.
func (p *Plan) settingArgs(r Run) []string {
	args := []string{"-experiment", p.Experiment}
	if p.Config != "" {
		args = []string{"-config", p.Config}
	}
	for _, s := range r.Set {
		args = append(args, "-set", s.String())
	}
	return args
}

// ResumeArgs is the dlca train command line that goes on with the run
// whose checkpoint is in out.
func ResumeArgs(out, device string) []string {
	return []string{"train", "-resume", filepath.Join(out, checkpointName), "-device", device}
}
