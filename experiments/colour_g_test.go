package experiments

import "testing"

func TestColourGSettings(t *testing.T) {
	e, err := Get("colour-g")
	if err != nil {
		t.Fatal(err)
	}
	// PAPER.md section 3: 576 update inputs, [512]x8, 256, 128, 64; 15 steps; three loss channels.
	if e.Model.UpdateInputs() != 576 || len(e.Model.UpdateLayers) != 11 || e.Steps != 15 || e.Iterations != 3000 || len(e.LossChannels) != 3 || !e.Colour {
		t.Fatalf("settings differ from the paper: %+v", e)
	}
}

func TestColourGTrainingLowersTheLoss(t *testing.T) {
	e, _ := Get("colour-g")
	losses := trainSmall(t, e, 8, 100)
	first, last := losses[0], losses[len(losses)-1]
	t.Logf("soft loss %v -> %v", first, last)
	if !(last < 0.9*first) {
		t.Fatalf("soft loss %v -> %v in %d iterations: want a drop of at least 10%%", first, last, len(losses))
	}
}
