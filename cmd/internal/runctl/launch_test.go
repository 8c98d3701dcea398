package runctl

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/dlca/dlca/bptt"
	"github.com/dlca/dlca/dlca"
)

// closeCounter is an engine that counts its Close calls.
type closeCounter struct {
	bptt.Engine
	closed int
}

func (c *closeCounter) Close() error { c.closed++; return c.Engine.Close() }

// TestLaunchOrder: Launch runs the long-run sequence in order and leaves
// nothing behind when a step refuses: a failed Check chooses no engine and
// makes no folder; a failed Accept closes the engine it chose and makes no
// folder; a launched run holds its folder's lock until Close, which closes
// the engine once.
func TestLaunchOrder(t *testing.T) {
	var o LongRun
	parse(t, &o, "-out", filepath.Join(t.TempDir(), "run"), "-iterations", "1")
	job := testJob(t, &o, nil)
	var engines []*closeCounter
	choose := job.SelectEngine
	job.SelectEngine = func(d string, s bptt.Setup, w io.Writer) (bptt.Engine, string, error) {
		eng, dev, err := choose(d, s, w)
		c := &closeCounter{Engine: eng}
		engines = append(engines, c)
		return c, dev, err
	}
	noRoom := errors.New("no room")
	refusing := job
	refusing.Check = func(*dlca.Model, bptt.Setup) error { return noRoom }
	if _, err := o.Launch(refusing, nil, io.Discard); err != noRoom || len(engines) != 0 {
		t.Fatalf("a failed Check: %v with %d engines chosen; want its error and none", err, len(engines))
	}
	wrongDevice := errors.New("wrong device")
	refusing = job
	refusing.Accept = func(bptt.Engine, string) error { return wrongDevice }
	if _, err := o.Launch(refusing, nil, io.Discard); err != wrongDevice || len(engines) != 1 || engines[0].closed != 1 {
		t.Fatalf("a failed Accept: %v, engines %v; want its error and the one chosen closed once", err, engines)
	}
	if _, err := os.Stat(o.Out); !os.IsNotExist(err) {
		t.Fatalf("refused launches left the folder %s (%v)", o.Out, err)
	}
	var warn bytes.Buffer
	l, err := o.Launch(job, nil, &warn)
	if err != nil {
		t.Fatal(err)
	}
	var second LongRun
	parse(t, &second, "-out", o.Out, "-iterations", "1", "-force")
	if _, err := second.Launch(testJob(t, &second, nil), nil, io.Discard); err == nil {
		t.Error("a second launch into a launched run's folder was not refused")
	}
	l.Close()
	if engines[1].closed != 1 {
		t.Errorf("Close closed the engine %d times, want once", engines[1].closed)
	}
	third, err := second.Launch(testJob(t, &second, nil), nil, io.Discard)
	if err != nil {
		t.Fatalf("after Close, the folder is still taken: %v", err)
	}
	third.Close()
}
