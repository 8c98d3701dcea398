package idx

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// encode builds an IDX byte stream by hand from the format's definition.
func encode(dims []int, data []byte) []byte {
	b := []byte{0, 0, typeUint8, byte(len(dims))}
	for _, d := range dims {
		b = append(b, byte(d>>24), byte(d>>16), byte(d>>8), byte(d))
	}
	return append(b, data...)
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// truncated returns b without its last n bytes.
func truncated(b []byte, n int) []byte { return b[:len(b)-n] }

// badCRC returns the gzip stream b with its CRC-32 (the trailer's first
// four bytes) corrupted.
func badCRC(b []byte) []byte {
	b = bytes.Clone(b)
	b[len(b)-8] ^= 0xff
	return b
}

func TestRead(t *testing.T) {
	raw := encode([]int{2, 3}, []byte{1, 2, 3, 4, 5, 6})
	for name, in := range map[string][]byte{"plain": raw, "gzip": gz(raw)} {
		a, err := Read(bytes.NewReader(in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(a.Dims) != 2 || a.Dims[0] != 2 || a.Dims[1] != 3 || !bytes.Equal(a.Data, []byte{1, 2, 3, 4, 5, 6}) {
			t.Fatalf("%s: got %v %v", name, a.Dims, a.Data)
		}
	}
}

func TestReadErrors(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "header"},
		{"bad magic", []byte{1, 0, 8, 1, 0, 0, 0, 0}, "magic"},
		{"float type", []byte{0, 0, 0x0d, 1, 0, 0, 0, 0}, "not supported"},
		{"short data", encode([]int{4}, []byte{1, 2}), "ends early"},
		{"trailing", append(encode([]int{1}, []byte{1}), 9), "trailing"},
		{"huge", []byte{0, 0, 8, 2, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, "exceed"},
		{"short header", []byte{0, 0, 8, 2, 0, 0, 0, 1}, "dimension 1"},
		{"gzip without its trailer", truncated(gz(encode([]int{3}, []byte{1, 2, 3})), 8), "unexpected EOF"},
		{"gzip cut in its header", gz(encode([]int{3}, []byte{1, 2, 3}))[:5], "bad gzip"},
		{"gzip with a wrong checksum", badCRC(gz(encode([]int{3}, []byte{1, 2, 3}))), "checksum"},
		{"gzip magic only", []byte{0x1f, 0x8b, 0}, "gzip"},
	}
	for _, c := range cases {
		if _, err := Read(bytes.NewReader(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Fatalf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
}

func TestLoadMNIST(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("t10k-images-idx3-ubyte.gz", gz(encode([]int{2, 1, 2}, []byte{0, 255, 7, 8})))
	write("t10k-labels-idx1-ubyte", encode([]int{2}, []byte{9, 3}))
	s, err := LoadMNIST(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	if s.Len() != 2 || s.Rows != 1 || s.Cols != 2 || s.Labels[0] != 9 || s.Labels[1] != 3 || s.Images[1] != 255 {
		t.Fatalf("loaded %+v", s)
	}
	if _, err := LoadMNIST(dir, true); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "train-images-idx3-ubyte") {
		t.Fatalf("missing split: %v, want an fs.ErrNotExist naming the file", err)
	}
}

// TestWrite: the writer produces the bytes the format defines, and a
// written .gz file reads back.
func TestWrite(t *testing.T) {
	a := &Array{Dims: []int{2, 3}, Data: []byte{1, 2, 3, 4, 5, 6}}
	var buf bytes.Buffer
	if err := Write(&buf, a); err != nil || !bytes.Equal(buf.Bytes(), encode(a.Dims, a.Data)) {
		t.Fatalf("Write: % x, %v; want % x", buf.Bytes(), err, encode(a.Dims, a.Data))
	}
	path := filepath.Join(t.TempDir(), "a-idx2-ubyte.gz")
	if err := WriteFile(path, a); err != nil {
		t.Fatal(err)
	}
	if raw, _ := os.ReadFile(path); len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
		t.Fatalf("%s is not gzip-compressed", path)
	}
	back, err := ReadFile(path)
	if err != nil || !bytes.Equal(back.Data, a.Data) || len(back.Dims) != 2 || back.Dims[0] != 2 || back.Dims[1] != 3 {
		t.Fatalf("read back %+v, %v", back, err)
	}
	if err := Write(&buf, &Array{Dims: []int{4}, Data: []byte{1}}); err == nil || !strings.Contains(err.Error(), "do not fill") {
		t.Fatalf("short data written: %v", err)
	}
}

// TestWriteMNIST: a split written to a directory loads back unchanged.
func TestWriteMNIST(t *testing.T) {
	dir := t.TempDir()
	s := &Set{Images: []byte{1, 2, 3, 4, 5, 6}, Labels: []int{7, 200, 0}, Rows: 1, Cols: 2}
	if err := WriteMNIST(dir, true, s); err != nil {
		t.Fatal(err)
	}
	back, err := LoadMNIST(dir, true)
	if err != nil || !bytes.Equal(back.Images, s.Images) || back.Rows != 1 || back.Cols != 2 || len(back.Labels) != 3 || back.Labels[1] != 200 {
		t.Fatalf("loaded back %+v, %v", back, err)
	}
	if err := WriteMNIST(dir, false, &Set{Labels: []int{256}}); err == nil || !strings.Contains(err.Error(), "fit a byte") {
		t.Fatalf("label 256 written: %v", err)
	}
}
