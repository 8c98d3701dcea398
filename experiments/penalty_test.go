package experiments

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestStatePenaltySetting: state_penalty and state_penalty_from (off in
// every built-in and absent from their records: TestStraightThroughSetting)
// reach bptt.Run
// when set, are kept in the records, and bad values are refused naming the
// key.
func TestStatePenaltySetting(t *testing.T) {
	c, _ := Builtin("colour-g")
	for key, value := range map[string]string{"iterations": "4000", "state_penalty": "0.01", "state_penalty_from": "3001"} {
		if err := c.Set(key, value); err != nil {
			t.Fatal(err)
		}
	}
	e, err := c.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if r := e.Run(); r.StatePenalty != 0.01 || r.StatePenaltyFrom != 3001 {
		t.Fatalf("run state penalty %v from %d, want 0.01 from 3001", r.StatePenalty, r.StatePenaltyFrom)
	}
	record, _ := json.Marshal(e.Config)
	back, err := FromRecord(record, "run.json")
	if err != nil || back.StatePenalty != 0.01 || back.StatePenaltyFrom != 3001 {
		t.Fatalf("the record reads back state penalty %v from %d (%v), want 0.01 from 3001", back.StatePenalty, back.StatePenaltyFrom, err)
	}
	for _, tc := range []struct{ key, value, want string }{
		{"state_penalty", "-0.5", "state_penalty: -0.5: must be a finite weight"},
		{"state_penalty_from", "-1", "state_penalty_from: -1: must not be negative"},
		{"state_penalty_from", "4001", "after the last (4000)"},
	} {
		c, _ := Builtin("colour-g")
		c.Set("iterations", "4000")
		c.Set("state_penalty", "0.01")
		if err := c.Set(tc.key, tc.value); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Resolve(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Fatalf("%s = %s: error %v, want one saying %q", tc.key, tc.value, err, tc.want)
		}
	}
	c, _ = Builtin("colour-g")
	c.Set("state_penalty_from", "10")
	if _, err := c.Resolve(); err == nil || !strings.Contains(err.Error(), "give state_penalty a weight") {
		t.Fatalf("state_penalty_from without state_penalty: error %v", err)
	}
}
