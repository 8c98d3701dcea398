package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dlca/dlca/cmd/internal/slurmtest"
)

// TestSweepSlurm submits a sweep of the small checkerboard over three seeds
// to a real Slurm (a one-node cluster on localhost) as a job array, waits
// for it and collects its results page.
func TestSweepSlurm(t *testing.T) {
	cluster := slurmtest.Start(t)
	t.Setenv("SLURM_CONF", cluster.Conf) // for sbatch, which dlca sweep -submit runs
	file, dlca, dir := writeSweep(t, 20), dlcaWrapper(t), t.TempDir()
	code, out, errs := runCmd("sweep", "-config", file, "-out", dir, "-emit", "slurm", "-submit", "-dlca", dlca, "-time", "10", "-mem", "200M")
	if code != 0 {
		t.Fatalf("dlca sweep -emit slurm -submit: exit %d\n%s%s", code, out, errs)
	}
	m := regexp.MustCompile(`submitted job (\d+) \(array of 3 tasks\)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("dlca sweep -submit does not report the job id:\n%s", out)
	}
	cluster.Wait(t, m[1], 3*time.Minute)

	code, out, errs = runCmd("sweep", "-status", dir)
	if code != 0 || !strings.Contains(out, "3 runs: 3 finished, 0 failed, 0 unfinished, 0 missing") {
		logs, _ := filepath.Glob(filepath.Join(dir, "logs", "*"))
		var text strings.Builder
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			text.WriteString("--- " + l + "\n" + string(b))
		}
		t.Fatalf("dlca sweep -status after the job: exit %d\n%s%s\nlogs:\n%s", code, out, errs, text.String())
	}
	if code, out, errs = runCmd("results", dir); code != 0 {
		t.Fatalf("dlca results %s: exit %d\n%s%s", dir, code, out, errs)
	}
	page, err := os.ReadFile(filepath.Join(dir, "results.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []string{"1", "2", "3"} {
		if !strings.Contains(string(page), "| seed-"+seed+" | "+seed+" | checkerboard-small | pcg | 20 |") {
			t.Errorf("results page lacks the run of seed %s:\n%s", seed, page)
		}
	}
	if !strings.Contains(string(page), "## By seed") || strings.Count(string(page), " | 1 | ") < 3 {
		t.Errorf("results page lacks the summary by seed (a row per seed, one run each):\n%s", page)
	}
}
