// Package sweep runs many trainings from one sweep file: a base experiment
// (built in, or an experiment file) and the settings to vary, as a grid, a
// list of runs, or both.
//
// A sweep is planned before anything runs: Load reads the file, Expand
// turns it into runs, each with a stable folder name derived from its
// settings and the dlca train command line that trains it (every setting
// becomes -set key=value), and WritePlan saves the plan as plan.json in the
// sweep's folder. The plan then runs on this machine (Local: N trainings at
// a time, resumable, Ctrl-C saves every run's checkpoint) or on a cluster
// (SlurmScript: one job-array task per run, each resuming from its
// checkpoint when Slurm requeues it). Collect reads what the runs left:
// which finished, failed, are part way or have not started.
//
// The sweep's folder:
//
//	plan.json           the plan (Plan)
//	runs/NAME/          each run's dlca train output folder
//	logs/NAME.log       each run's output, every attempt appended
//	sweep.sbatch        the Slurm script, when emitted
//	results.md          the results page, when collected
//
// The package starts dlca train as a separate process for each run, so a
// run on this machine and a run on a cluster node are the same command.
package sweep
