package experiments

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestStraightThroughSetting: straight_through_from (and state_penalty,
// TestStatePenaltySetting) is off (0) in every built-in, absent from their
// files and records (so a run of the paper's
// method records what it did before the option), reaches bptt.Run when set,
// is kept in the records, and is refused when negative or after the last
// iteration.
func TestStraightThroughSetting(t *testing.T) {
	for _, name := range Names() {
		c, _ := Builtin(name)
		var text bytes.Buffer
		if err := c.WriteTOML(&text); err != nil {
			t.Fatal(err)
		}
		record, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		e, err := c.Resolve()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(text.String()+string(record), "straight_through") || e.Run().StraightThroughFrom != 0 {
			t.Fatalf("%s: straight-through is on or recorded in the paper's method", name)
		}
		if strings.Contains(text.String()+string(record), "state_penalty") || e.Run().StatePenalty != 0 {
			t.Fatalf("%s: the state penalty is on or recorded in the paper's method", name)
		}
	}
	c, _ := Builtin("colour-g")
	if err := c.Set("straight_through_from", "2000"); err != nil {
		t.Fatal(err)
	}
	e, err := c.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if from := e.Run().StraightThroughFrom; from != 2000 {
		t.Fatalf("run straight-through from %d, want 2000", from)
	}
	record, _ := json.Marshal(e.Config)
	back, err := FromRecord(record, "run.json")
	if err != nil || back.StraightThroughFrom != 2000 {
		t.Fatalf("the record reads back straight-through from %d (%v), want 2000", back.StraightThroughFrom, err)
	}
	for _, tc := range []struct{ value, want string }{
		{"-1", "must not be negative"},
		{"3001", "after the last (3000)"},
	} {
		c.Set("straight_through_from", tc.value)
		if _, err := c.Resolve(); err == nil || !strings.Contains(err.Error(), "straight_through_from: ") || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("straight_through_from = %s: error %v, want one saying %q", tc.value, err, tc.want)
		}
	}
}
