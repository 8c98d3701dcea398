package nn

import (
	"fmt"
	"io"
	"os"

	"github.com/dlca/dlca/autograd/nn/tensorfile"
	"github.com/dlca/dlca/internal/safefile"
)

// Saving and loading modules: their state dicts (GetStateDict) in the
// formats of package tensorfile.

// SaveSafetensors writes m's state dict (see GetStateDict) to path in the
// safetensors format, which safetensors.torch.load_file and
// load_state_dict read. It writes through internal/safefile, so a failed
// save leaves any earlier file whole.
func SaveSafetensors(path string, m Module) error {
	sd, err := GetStateDict(m)
	if err != nil {
		return err
	}
	return safefile.Write(path, func(w io.Writer) error { return tensorfile.WriteSafetensors(w, sd, map[string]string{"format": "pt"}) })
}

// LoadSafetensors reads a safetensors file into m's parameters and buffers
// (see LoadStateDict for what must match).
func LoadSafetensors(path string, m Module) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sd, _, err := tensorfile.ReadSafetensors(f)
	if err != nil {
		return fmt.Errorf("%w (reading %s)", err, path)
	}
	if err := LoadStateDict(m, sd); err != nil {
		return fmt.Errorf("%w (loading %s)", err, path)
	}
	return nil
}

// SaveTorch writes m's state dict (see GetStateDict) to path in the
// torch.save format: torch.load(path, weights_only=True) returns it, ready
// for model.load_state_dict. It writes through internal/safefile, so a
// failed save leaves any earlier file whole.
func SaveTorch(path string, m Module) error {
	sd, err := GetStateDict(m)
	if err != nil {
		return err
	}
	return safefile.Write(path, func(w io.Writer) error { return tensorfile.WriteTorch(w, sd) })
}

// LoadTorch reads a torch.save file of a state dict (torch.save(
// model.state_dict(), path)) into m's parameters and buffers (see
// LoadStateDict for what must match).
func LoadTorch(path string, m Module) error {
	sd, err := readTorchFile(path)
	if err != nil {
		return err
	}
	if err := LoadStateDict(m, sd); err != nil {
		return fmt.Errorf("%w (loading %s)", err, path)
	}
	return nil
}

func readTorchFile(path string) (tensorfile.StateDict, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	sd, err := tensorfile.ReadTorch(f, info.Size())
	if err != nil {
		return nil, fmt.Errorf("%w (reading %s)", err, path)
	}
	return sd, nil
}
