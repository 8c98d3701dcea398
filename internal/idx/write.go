package idx

import (
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/dlca/dlca/internal/safefile"
)

// Write encodes a as an IDX file of unsigned bytes (uncompressed).
func Write(w io.Writer, a *Array) error {
	total := 1
	for _, d := range a.Dims {
		total *= d
	}
	if len(a.Dims) > 255 || total != len(a.Data) {
		return fmt.Errorf("idx: %d bytes of data do not fill dimensions %v", len(a.Data), a.Dims)
	}
	head := []byte{0, 0, typeUint8, byte(len(a.Dims))}
	for _, d := range a.Dims {
		head = binary.BigEndian.AppendUint32(head, uint32(d))
	}
	if _, err := w.Write(head); err != nil {
		return err
	}
	_, err := w.Write(a.Data)
	return err
}

// WriteFile writes a to path (through internal/safefile), gzip-compressed
// when the name ends in .gz, as the MNIST files are published.
func WriteFile(path string, a *Array) error {
	return safefile.Write(path, func(w io.Writer) error {
		if !strings.HasSuffix(path, ".gz") {
			return Write(w, a)
		}
		zw := gzip.NewWriter(w)
		if err := Write(zw, a); err != nil {
			return err
		}
		return zw.Close()
	})
}

// WriteMNIST writes s as the training or test split of an MNIST-format data
// set in dir, gzip-compressed: the files LoadMNIST reads.
func WriteMNIST(dir string, train bool, s *Set) error {
	labels := make([]byte, len(s.Labels))
	for i, l := range s.Labels {
		if l < 0 || l > 255 {
			return fmt.Errorf("idx: label %d of example %d does not fit a byte", l, i)
		}
		labels[i] = byte(l)
	}
	imagesPath, labelsPath := splitPaths(dir, train)
	if err := WriteFile(imagesPath+".gz", &Array{Dims: []int{s.Len(), s.Rows, s.Cols}, Data: s.Images}); err != nil {
		return err
	}
	return WriteFile(labelsPath+".gz", &Array{Dims: []int{len(labels)}, Data: labels})
}
