package mnist

import (
	"math"

	"github.com/dlca/dlca/autograd"
	"testing"
)

// TestLossEveryChangesOnlyTheReport trains the MLP one epoch of 10 steps on
// the CPU reading the loss every step and every fourth step (and the
// epoch's last): the parameters must come out identical bit for bit, since
// reading a loss back changes nothing on the device, and the sparser
// report (the mean of steps 1, 5, 9 and 10) must be a finite positive loss
// other than the mean of all ten.
func TestLossEveryChangesOnlyTheReport(t *testing.T) {
	train, _ := loadMNIST(t)
	train = train.Head(640)
	var reports [2]float64
	var params [2][]float32
	for i, every := range []int{1, 4} {
		m := placed(t, "mlp", 5, On(autograd.CPU))
		cfg := Config{Epochs: 1, Batch: 64, LR: 2e-3, Seed: 2, LossEvery: every}
		if err := Train(m, train, cfg, func(_ int, loss float64) { reports[i] = loss }); err != nil {
			t.Fatal(err)
		}
		for _, p := range m.Parameters() {
			params[i] = append(params[i], p.Data32()...)
		}
	}
	for j := range params[0] {
		if math.Float32bits(params[0][j]) != math.Float32bits(params[1][j]) {
			t.Fatalf("parameter element %d: %v reading every step, %v every fourth", j, params[0][j], params[1][j])
		}
	}
	if !(reports[1] > 0) || math.IsInf(reports[1], 0) || reports[0] == reports[1] {
		t.Errorf("the epoch's loss read every fourth step is %v (every step: %v); want a finite positive mean of fewer losses", reports[1], reports[0])
	}
}
