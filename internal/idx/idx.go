package idx

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Array is the content of an IDX file of unsigned bytes.
type Array struct {
	Dims []int
	Data []byte // row-major, len = product of Dims
}

const typeUint8 = 0x08

// maxElems bounds the size a header may claim (1 GiB), so a corrupt header
// cannot make Read allocate without limit.
const maxElems = 1 << 30

// Read decodes an IDX array of unsigned bytes from r. Gzip-compressed input
// is detected by its magic number and decompressed.
func Read(r io.Reader) (*Array, error) {
	br := bufio.NewReader(r)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("idx: bad gzip stream: %w", err)
		}
		defer zr.Close()
		br = bufio.NewReader(zr)
	}
	var head [4]byte
	if _, err := io.ReadFull(br, head[:]); err != nil {
		return nil, fmt.Errorf("idx: reading the header: %w", err)
	}
	if head[0] != 0 || head[1] != 0 {
		return nil, fmt.Errorf("idx: bad magic number % x (not an IDX file)", head)
	}
	if head[2] != typeUint8 {
		return nil, fmt.Errorf("idx: element type 0x%02x is not supported (only unsigned bytes, 0x08)", head[2])
	}
	nd := int(head[3])
	dims := make([]int, nd)
	total := 1
	for i := range dims {
		var d uint32
		if err := binary.Read(br, binary.BigEndian, &d); err != nil {
			return nil, fmt.Errorf("idx: reading dimension %d: %w", i, err)
		}
		dims[i] = int(d)
		total *= dims[i]
		if total > maxElems {
			return nil, fmt.Errorf("idx: dimensions %v exceed %d elements", dims[:i+1], maxElems)
		}
	}
	data := make([]byte, total)
	if _, err := io.ReadFull(br, data); err != nil {
		return nil, fmt.Errorf("idx: data ends early (want %d bytes for dimensions %v): %w", total, dims, err)
	}
	// Reading past the data also makes gzip check its trailer (CRC and
	// length), so a cut or corrupt stream is caught here.
	if extra, err := br.Peek(1); len(extra) > 0 {
		return nil, fmt.Errorf("idx: trailing bytes after %d bytes of data for dimensions %v", total, dims)
	} else if err != io.EOF {
		return nil, fmt.Errorf("idx: after the data: %w", err)
	}
	return &Array{Dims: dims, Data: data}, nil
}

// ReadFile reads an IDX file, gzip-compressed or not.
func ReadFile(path string) (*Array, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a, err := Read(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// Set is a labelled image data set: N images of Rows×Cols bytes.
type Set struct {
	Images     []byte // N*Rows*Cols pixels, 0..255, image-major
	Labels     []int  // N labels
	Rows, Cols int
}

// Len returns the number of examples.
func (s *Set) Len() int { return len(s.Labels) }

// LoadMNIST reads the training or test split of an MNIST-format data set
// (Fashion-MNIST included) from dir, which holds
// {train,t10k}-{images-idx3,labels-idx1}-ubyte, each optionally with .gz.
// A missing file gives an error that wraps fs.ErrNotExist.
func LoadMNIST(dir string, train bool) (*Set, error) {
	imagesPath, labelsPath := splitPaths(dir, train)
	images, err := readEither(imagesPath)
	if err != nil {
		return nil, err
	}
	labels, err := readEither(labelsPath)
	if err != nil {
		return nil, err
	}
	if len(images.Dims) != 3 || len(labels.Dims) != 1 || images.Dims[0] != labels.Dims[0] {
		return nil, fmt.Errorf("idx: %s: images %v and labels %v do not match (want [N, rows, cols] and [N])", dir, images.Dims, labels.Dims)
	}
	s := &Set{Images: images.Data, Labels: make([]int, labels.Dims[0]), Rows: images.Dims[1], Cols: images.Dims[2]}
	for i, l := range labels.Data {
		s.Labels[i] = int(l)
	}
	return s, nil
}

// splitPaths returns the paths, without .gz, of a split's image and label
// files in dir.
func splitPaths(dir string, train bool) (images, labels string) {
	prefix := "t10k"
	if train {
		prefix = "train"
	}
	return filepath.Join(dir, prefix+"-images-idx3-ubyte"), filepath.Join(dir, prefix+"-labels-idx1-ubyte")
}

// readEither reads path.gz if it exists, else path.
func readEither(path string) (*Array, error) {
	if _, err := os.Stat(path + ".gz"); err == nil {
		return ReadFile(path + ".gz")
	}
	a, err := ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("idx: neither %s.gz nor %s exists: %w", path, path, fs.ErrNotExist)
	}
	return a, err
}

// Batch returns the images at indices as float32 pixels scaled to [0, 1],
// image-major, and their labels.
func (s *Set) Batch(indices []int) (pixels []float32, labels []int) {
	size := s.Rows * s.Cols
	pixels = make([]float32, len(indices)*size)
	labels = make([]int, len(indices))
	for i, k := range indices {
		for j, p := range s.Images[k*size : (k+1)*size] {
			pixels[i*size+j] = float32(p) / 255
		}
		labels[i] = s.Labels[k]
	}
	return pixels, labels
}
