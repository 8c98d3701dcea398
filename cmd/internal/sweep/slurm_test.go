package sweep

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func script(t *testing.T, s Slurm, dir string, p *Plan) string {
	t.Helper()
	var b strings.Builder
	if err := s.WriteScript(&b, dir, p); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestSlurmScriptResources(t *testing.T) {
	p := expand(t, "experiment = \"lizard\"\n[grid]\nwiring_seed = { from = 1, to = 16 }\n")
	s := Slurm{Dlca: "/opt/dlca bin/dlca", Device: "gpu", Time: "2:00:00", Mem: "4G", CPUs: 4, Partition: "gpu", Account: "proj42", Name: "lizard"}
	text := script(t, s, "/scratch/lizard", p)
	for _, want := range []string{
		"#SBATCH --array=0-15\n", "#SBATCH --time=2:00:00\n", "#SBATCH --mem=4G\n", "#SBATCH --cpus-per-task=4\n",
		"#SBATCH --partition=gpu\n", "#SBATCH --account=proj42\n", "#SBATCH --gres=gpu:1\n", "#SBATCH --requeue\n",
		"#SBATCH --job-name=lizard\n", "#SBATCH --output=/scratch/lizard/logs/slurm-%A_%a.out\n",
		"dlca='/opt/dlca bin/dlca'\n", "15) name=wiring_seed-16; settings=(-experiment lizard ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("script lacks %q:\n%s", want, text)
		}
	}
	s.Device, s.Partition, s.Account = "cpu", "", ""
	text = script(t, s, "/scratch/lizard", p)
	for _, unwanted := range []string{"--gres", "--partition", "--account"} {
		if strings.Contains(text, unwanted) {
			t.Errorf("a CPU script with no partition or account has %s:\n%s", unwanted, text)
		}
	}
}

// TestSlurmTask runs the script's task as Slurm would, with a stand-in
// dlca that records its command line: a new run starts with its settings,
// a run with a checkpoint resumes, a finished one is left alone, and a
// failure is recorded in the run's folder.
func TestSlurmTask(t *testing.T) {
	dir := t.TempDir()
	p := expand(t, "experiment = \"checkerboard-small\"\n[set]\niterations = 20\n[grid]\nseed = [1, 2, 3]\n[[runs]]\nnote = \"it's\"\n")
	fake := filepath.Join(dir, "dlca")
	calls := filepath.Join(dir, "calls")
	if err := os.WriteFile(fake, []byte("#!/bin/bash\necho \"$*\" >>"+calls+"\nexit ${FAKE_EXIT:-0}\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ScriptName)
	if err := os.WriteFile(path, []byte(script(t, Slurm{Dlca: fake, Device: "cpu", Time: "1", Mem: "1G", CPUs: 1}, dir, p)), 0o644); err != nil {
		t.Fatal(err)
	}
	task := func(i, exit string) {
		t.Helper()
		cmd := exec.Command("bash", path)
		cmd.Env = append(os.Environ(), "SLURM_ARRAY_TASK_ID="+i, "FAKE_EXIT="+exit)
		out, err := cmd.CombinedOutput()
		if (err != nil) != (exit != "0") {
			t.Fatalf("task %s: %v\n%s", i, err, out)
		}
	}
	// Run i+1 has seed i+1: the first is new, the second has a checkpoint,
	// the third has finished.
	names := map[string]string{}
	for i, r := range p.Runs {
		names[string(rune('1'+i))] = r.Name
	}
	mustMkdir(t, RunDir(dir, names["2"]))
	mustWrite(t, filepath.Join(RunDir(dir, names["2"]), checkpointName))
	mustMkdir(t, RunDir(dir, names["3"]))
	mustWrite(t, filepath.Join(RunDir(dir, names["3"]), recordName))
	task("0", "0")
	task("1", "0")
	task("2", "0")
	b, _ := os.ReadFile(calls)
	got := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(got) != 2 ||
		got[0] != "train -experiment checkerboard-small -set iterations=20 -set note=it's -set seed=1 -device cpu -out "+RunDir(dir, names["1"]) ||
		got[1] != "train -resume "+filepath.Join(RunDir(dir, names["2"]), checkpointName)+" -device cpu" {
		t.Errorf("dlca calls:\n%s\nwant a new run 1, run 2 resumed, nothing for the finished run 3", b)
	}
	if _, err := os.Stat(filepath.Join(RunDir(dir, names["1"]), FailedName)); err == nil {
		t.Errorf("a run that succeeded is marked failed")
	}
	task("0", "3")
	if b, err := os.ReadFile(filepath.Join(RunDir(dir, names["1"]), FailedName)); err != nil || !strings.Contains(string(b), "exit status 3") {
		t.Errorf("failed run's %s: %q, %v", FailedName, b, err)
	}
	if st := Status(dir, p); st[0].State != Failed || st[2].State != Finished || st[1].State != Unfinished {
		t.Errorf("states %v %v %v; want failed, unfinished, finished", st[0].State, st[1].State, st[2].State)
	}
	if log, _ := os.ReadFile(LogPath(dir, names["1"])); strings.Count(string(log), "== ") != 2 {
		t.Errorf("log of run 1 (two attempts):\n%s", log)
	}
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, path string) {
	t.Helper()
	if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
}
