package mnist

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/dlca/dlca/autograd"
	"github.com/dlca/dlca/internal/idx"
)

// Classes is the number of classes of both data sets.
const Classes = 10

// Dataset is an MNIST-format data set: where its IDX files are when no
// directory is given, what to do when they are missing, and the statistics
// its pixels are standardised with.
type Dataset struct {
	Name string // the -dataset name
	// Mean and Std are the training set's pixel mean and standard deviation
	// (pixels scaled to [0, 1]), the published figures.
	Mean, Std float32
	dir       func() (string, error) // the default directory
	get       string                 // how to install the files
}

// FashionDir is where Debian's dataset-fashion-mnist package installs
// Fashion-MNIST.
const FashionDir = "/usr/share/datasets/fashion-mnist"

var (
	// MNIST is the handwritten digits, from the GoMNIST module.
	MNIST = Dataset{Name: "mnist", Mean: 0.1307, Std: 0.3081, dir: goMNISTDir, get: getGoMNIST}
	// Fashion is Fashion-MNIST, from Debian's dataset-fashion-mnist.
	Fashion = Dataset{Name: "fashion", Mean: 0.2860, Std: 0.3530, dir: func() (string, error) { return FashionDir, nil },
		get: "on Debian, apt-get install dataset-fashion-mnist"}
)

// Datasets lists the data sets by name.
var Datasets = []Dataset{MNIST, Fashion}

// DatasetNamed returns the data set called name.
func DatasetNamed(name string) (Dataset, error) {
	for _, d := range Datasets {
		if d.Name == name {
			return d, nil
		}
	}
	return Dataset{}, fmt.Errorf("mnist: unknown data set %q (want mnist or fashion)", name)
}

// Dir returns the directory the data set is read from when none is given.
func (d Dataset) Dir() (string, error) { return d.dir() }

// Load reads the training and test splits from dir, or from the data set's
// own place (Dir) when dir is "". Missing files give an error that says how
// to get them.
func (d Dataset) Load(dir string) (train, test *Set, err error) {
	given := dir != ""
	if !given {
		if dir, err = d.dir(); err != nil {
			return nil, nil, err
		}
	}
	var splits [2]*Set
	for i, isTrain := range []bool{true, false} {
		s, err := idx.LoadMNIST(dir, isTrain)
		switch {
		case errors.Is(err, fs.ErrNotExist) && given:
			return nil, nil, fmt.Errorf("mnist: -data %s does not hold the %s data set (%v): give -data the directory holding its four IDX files, or leave -data out to read its own copy", dir, d.Name, err)
		case errors.Is(err, fs.ErrNotExist):
			return nil, nil, fmt.Errorf("mnist: the %s data set is missing (%v): %s, or give -data the directory holding its four IDX files", d.Name, err, d.get)
		case err != nil:
			return nil, nil, err
		}
		if s.Rows != 28 || s.Cols != 28 {
			return nil, nil, fmt.Errorf("mnist: %s: images of %dx%d pixels, want 28x28", dir, s.Rows, s.Cols)
		}
		for k, l := range s.Labels {
			if l >= Classes {
				return nil, nil, fmt.Errorf("mnist: %s: example %d has label %d, want 0 to %d", dir, k, l, Classes-1)
			}
		}
		splits[i] = &Set{Set: s, Mean: d.Mean, Std: d.Std}
	}
	return splits[0], splits[1], nil
}

// Set is a split of a data set with the statistics it is standardised with.
type Set struct {
	*idx.Set
	Mean, Std float32
}

// Input returns the images at indices as a [N, 1, 28, 28] CPU tensor,
// standardised, and their labels.
func (s *Set) Input(indices []int) (*autograd.Tensor, []int) {
	px, labels := s.Batch(indices)
	for i, p := range px {
		px[i] = (p - s.Mean) / s.Std
	}
	return autograd.New(px, len(indices), 1, s.Rows, s.Cols), labels
}

// Head returns the first n examples of s (all of them when n >= s.Len()),
// sharing its storage: a subset for quick runs.
func (s *Set) Head(n int) *Set {
	n = min(n, s.Len())
	size := s.Rows * s.Cols
	head := &idx.Set{Images: s.Images[:n*size], Labels: s.Labels[:n], Rows: s.Rows, Cols: s.Cols}
	return &Set{Set: head, Mean: s.Mean, Std: s.Std}
}
