package mnistpage

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"slices"

	"github.com/dlca/dlca/cmd/internal/mnist"
	"github.com/dlca/dlca/internal/htmlpage"
	"github.com/dlca/dlca/internal/idx"
)

// TrainerPackage is the trainer's import path, which the command that
// writes the page builds to WebAssembly (internal/gowasm).
const TrainerPackage = "github.com/dlca/dlca/cmd/mnist/internal/pagewasm"

// Settings are what the page trains and how, as the trainer reads them
// (JSON in the page); the person can change the training's settings in
// the page before starting.
type Settings struct {
	Dataset string   `json:"dataset"` // mnist or fashion
	Classes []string `json:"classes"` // the classes' names, by label
	Model   string   `json:"model"`   // mnist.NewModel's kind
	Epochs  int      `json:"epochs"`
	Batch   int      `json:"batch"`
	LR      float64  `json:"lr"`
	Seed    uint64   `json:"seed"`
	Train   int      `json:"train"` // training images carried
	Test    int      `json:"test"`  // held-out images carried
	Mean    float32  `json:"mean"`  // the data set's standardisation
	Std     float32  `json:"std"`
	Rows    int      `json:"rows"`
	Cols    int      `json:"cols"`
}

// classNames are the classes of each data set, by label.
var classNames = map[string][]string{
	"mnist":   {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"},
	"fashion": {"T-shirt/top", "trouser", "pullover", "dress", "coat", "sandal", "shirt", "sneaker", "bag", "ankle boot"},
}

// Page is what the page carries: the training and held-out images, and
// the training's starting settings.
type Page struct {
	Dataset     mnist.Dataset
	Train, Test *mnist.Set
	Model       string
	Epochs      int
	Batch       int
	LR          float64
	Seed        uint64
}

// Trainer is the WebAssembly build of TrainerPackage and the Go
// toolchain's wasm_exec.js that loads it.
type Trainer struct {
	Wasm, WasmExec []byte
}

//go:embed assets/mnist.html
var pageHTML string

//go:embed assets/mnist.js
var pageJS string

// Check reports what is wrong with p, if anything, without needing the
// trainer.
func (p *Page) Check() error {
	_, err := p.settings()
	return err
}

// settings returns p's settings, or what is wrong with p.
func (p *Page) settings() (Settings, error) {
	if !slices.Contains(mnist.Models, p.Model) {
		return Settings{}, fmt.Errorf("mnistpage: unknown model %q (want one of %v)", p.Model, mnist.Models)
	}
	if p.Epochs <= 0 || p.Batch <= 0 || !(p.LR > 0) {
		return Settings{}, fmt.Errorf("mnistpage: epochs %d, batch %d and learning rate %v must be positive", p.Epochs, p.Batch, p.LR)
	}
	if p.Train == nil || p.Test == nil || p.Train.Len() == 0 || p.Test.Len() == 0 {
		return Settings{}, fmt.Errorf("mnistpage: the page needs training and held-out images")
	}
	if p.Train.Rows != p.Test.Rows || p.Train.Cols != p.Test.Cols {
		return Settings{}, fmt.Errorf("mnistpage: training images of %dx%d, held-out images of %dx%d", p.Train.Rows, p.Train.Cols, p.Test.Rows, p.Test.Cols)
	}
	return Settings{Dataset: p.Dataset.Name, Classes: classNames[p.Dataset.Name], Model: p.Model, Epochs: p.Epochs, Batch: p.Batch, LR: p.LR, Seed: p.Seed,
		Train: p.Train.Len(), Test: p.Test.Len(), Mean: p.Dataset.Mean, Std: p.Dataset.Std, Rows: p.Train.Rows, Cols: p.Train.Cols}, nil
}

// Write writes the page as one HTML file: the data and the trainer, each
// gzipped in base64, and the script that runs them, with no external
// resources.
func Write(w io.Writer, p *Page, tr *Trainer) error {
	if tr == nil || len(tr.Wasm) == 0 {
		return fmt.Errorf("mnistpage: page without a trainer (build %s to WebAssembly: internal/gowasm)", TrainerPackage)
	}
	s, err := p.settings()
	if err != nil {
		return err
	}
	// json.Marshal escapes <, > and &, so no setting can close the script.
	js, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return htmlpage.Fill(w, pageHTML, map[string]string{
		"Title":    html.EscapeString(s.Dataset),
		"Settings": string(js),
		"Data":     htmlpage.GzipBase64(encodeData(p.Train, p.Test)),
		"Wasm":     htmlpage.GzipBase64(tr.Wasm),
		"WasmExec": string(tr.WasmExec),
		"Loader":   htmlpage.GoLoaderJS,
		"Script":   pageJS,
	})
}

// encodeData lays the two sets out as the page carries them: the training
// images, the held-out images (a byte a pixel), then the training labels
// and the held-out labels (a byte each).
func encodeData(train, test *mnist.Set) []byte {
	b := append(append([]byte{}, train.Images...), test.Images...)
	for _, s := range []*mnist.Set{train, test} {
		for _, l := range s.Labels {
			b = append(b, byte(l))
		}
	}
	return b
}

// DecodeData returns the training and held-out sets from the page's data
// (encodeData's layout), standardised as s says.
func DecodeData(s Settings, data []byte) (train, test *mnist.Set, err error) {
	size := s.Rows * s.Cols
	if want := (s.Train + s.Test) * (size + 1); size <= 0 || s.Train <= 0 || s.Test <= 0 || len(data) != want {
		return nil, nil, fmt.Errorf("mnistpage: the page carries %d bytes of data, want %d for %d training and %d held-out images of %dx%d", len(data), want, s.Train, s.Test, s.Rows, s.Cols)
	}
	labels := data[(s.Train+s.Test)*size:]
	set := func(images []byte, labels []byte) *mnist.Set {
		l := make([]int, len(labels))
		for i, v := range labels {
			l[i] = int(v)
		}
		return &mnist.Set{Set: &idx.Set{Images: images, Labels: l, Rows: s.Rows, Cols: s.Cols}, Mean: s.Mean, Std: s.Std}
	}
	return set(data[:s.Train*size], labels[:s.Train]), set(data[s.Train*size:(s.Train+s.Test)*size], labels[s.Train:]), nil
}
