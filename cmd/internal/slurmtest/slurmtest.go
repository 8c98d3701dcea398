// Package slurmtest starts a real one-node Slurm cluster on localhost for
// a test: slurmctld and slurmd (Debian's slurm-wlm) with a generated
// configuration in a temporary folder, listening on 127.0.0.1 only, on
// free ports, and stopped when the test ends, with every process of theirs.
//
// Without Slurm, or when not root (slurmd starts jobs as their user), the
// test is skipped with the reason; with DLCA_REQUIRE_SLURM=1 (CI) it fails
// instead, as DLCA_REQUIRE_GPU does for the GPU.
package slurmtest

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"text/template"
	"time"
)

// Cluster is a running test cluster. Conf is its slurm.conf: Slurm's
// commands find the cluster through SLURM_CONF.
type Cluster struct {
	Conf string
	dir  string
}

// config is the cluster's slurm.conf. Authentication is auth/none: the
// daemons accept only 127.0.0.1 and die with the test, so no munge key is
// needed.
var config = template.Must(template.New("slurm.conf").Parse(`ClusterName=dlcatest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={{.CtldPort}}
SlurmdPort={{.DPort}}
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MailProg=/bin/true
ReturnToService=2
StateSaveLocation={{.Dir}}/state
SlurmdSpoolDir={{.Dir}}/spool
SlurmctldPidFile={{.Dir}}/slurmctld.pid
SlurmdPidFile={{.Dir}}/slurmd.pid
SlurmctldLogFile={{.Dir}}/slurmctld.log
SlurmdLogFile={{.Dir}}/slurmd.log
NodeName=localhost NodeAddr=127.0.0.1 CPUs={{.CPUs}} RealMemory=2000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
`))

// unavailable skips the test, or fails it under DLCA_REQUIRE_SLURM=1.
func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := "no Slurm test cluster: " + fmt.Sprintf(format, args...)
	if os.Getenv("DLCA_REQUIRE_SLURM") == "1" {
		t.Fatal(msg + " (DLCA_REQUIRE_SLURM=1: a Slurm cluster is required; scripts/deps installs slurm-wlm)")
	}
	t.Skip(msg + " (set DLCA_REQUIRE_SLURM=1 to make this a failure)")
}

// Start starts a cluster for t, and stops it when t ends.
func Start(t *testing.T) *Cluster {
	t.Helper()
	for _, prog := range []string{"slurmctld", "slurmd", "sbatch", "squeue", "sinfo", "scancel"} {
		if _, err := lookPath(prog); err != nil {
			unavailable(t, "%s is not installed (Debian: apt-get install slurm-wlm)", prog)
		}
	}
	if os.Geteuid() != 0 {
		unavailable(t, "slurmd must run as root to start jobs")
	}
	// A short folder: slurmstepd puts sockets in the spool folder, and a
	// socket's path must fit in 108 bytes.
	dir, err := os.MkdirTemp("", "dlca-slurm-")
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range []string{"state", "spool"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ports := freePorts(t, 2)
	var conf bytes.Buffer
	if err := config.Execute(&conf, map[string]any{"Dir": dir, "CtldPort": ports[0], "DPort": ports[1], "CPUs": runtime.NumCPU()}); err != nil {
		t.Fatal(err)
	}
	c := &Cluster{Conf: filepath.Join(dir, "slurm.conf"), dir: dir}
	if err := os.WriteFile(c.Conf, conf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var daemons []*exec.Cmd
	t.Cleanup(func() { c.stop(t, daemons) })
	for _, args := range [][]string{{"slurmctld", "-D", "-i"}, {"slurmd", "-D", "-N", "localhost"}} {
		path, _ := lookPath(args[0])
		cmd := exec.Command(path, args[1:]...)
		cmd.Env = append(os.Environ(), "SLURM_CONF="+c.Conf)
		out, err := os.Create(filepath.Join(dir, args[0]+".out"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			out.Close()
			unavailable(t, "cannot start %s: %v", args[0], err)
		}
		out.Close()
		daemons = append(daemons, cmd)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		state, err := c.Command("sinfo", "-h", "-o", "%T").Output()
		if s := strings.TrimSpace(string(state)); err == nil && (s == "idle" || s == "mixed" || s == "allocated") {
			return c
		}
		if time.Now().After(deadline) {
			unavailable(t, "the node did not come up in 30 s (sinfo: %q, %v)\n%s", state, err, c.logs())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Command is a Slurm command on this cluster.
func (c *Cluster) Command(name string, args ...string) *exec.Cmd {
	path, err := lookPath(name)
	if err != nil {
		path = name
	}
	cmd := exec.Command(path, args...)
	cmd.Env = append(os.Environ(), "SLURM_CONF="+c.Conf)
	return cmd
}

// Wait waits until job has left the queue (finished, failed or cancelled),
// failing the test after timeout.
func (c *Cluster) Wait(t *testing.T, job string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		out, err := c.Command("squeue", "-h", "-j", job, "-o", "%i %T").CombinedOutput()
		if err == nil && strings.TrimSpace(string(out)) == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s still queued after %v:\n%s\n%s", job, timeout, out, c.logs())
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// logs are the daemons' logs, for a failure's message.
func (c *Cluster) logs() string {
	var b strings.Builder
	for _, name := range []string{"slurmctld.out", "slurmd.out"} {
		text, _ := os.ReadFile(filepath.Join(c.dir, name))
		lines := strings.Split(strings.TrimSpace(string(text)), "\n")
		fmt.Fprintf(&b, "--- %s (last lines)\n%s\n", name, strings.Join(lines[max(0, len(lines)-15):], "\n"))
	}
	return b.String()
}

// stop cancels the cluster's jobs, stops its daemons, kills what is left
// of its processes (job steps, their programs: whatever has this
// cluster's SLURM_CONF in its environment) and removes its folder.
func (c *Cluster) stop(t *testing.T, daemons []*exec.Cmd) {
	if len(daemons) == 2 {
		c.Command("scancel", "--partition=debug").Run()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			if out, err := c.Command("squeue", "-h").Output(); err != nil || strings.TrimSpace(string(out)) == "" {
				break
			}
		}
	}
	for i := len(daemons) - 1; i >= 0; i-- {
		d := daemons[i]
		d.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { d.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			d.Process.Kill()
			<-done
		}
	}
	for _, pid := range c.processes() {
		t.Logf("killing process %d left by the Slurm test cluster", pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	os.RemoveAll(c.dir)
}

// processes are the ids of the processes, other than this one, whose
// environment names this cluster's configuration.
func (c *Cluster) processes() []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	mark := []byte("SLURM_CONF=" + c.Conf + "\x00")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && bytes.Contains(env, mark) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// lookPath finds a program on PATH or in the system folders where Debian
// puts the daemons (/usr/sbin is not on every user's PATH).
func lookPath(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/sbin", "/usr/local/sbin"} {
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p, nil
		}
	}
	return "", exec.ErrNotFound
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// freePorts returns n ports free on 127.0.0.1 now.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return ports
}
