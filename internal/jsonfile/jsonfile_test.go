package jsonfile

import (
	"errors"
	"strings"
	"testing"
	"time"
)

type item struct {
	N int    `json:"n" jsonfile:"required"`
	S string `json:"s"`
}

type record struct {
	A     int             `json:"a" jsonfile:"required"`
	B     string          `json:"b"`
	Items []item          `json:"items"`
	ByKey map[string]item `json:"by_key"`
	F     float32         `json:"f"`
	D     time.Duration   `json:"d"`
}

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     error  // a sentinel the error must wrap, if not nil
		text     string // what the error must say, "" for no error
	}{
		{"object", `{"a": 1, "b": "x"}`, nil, ""},
		{"nested", `{"a": 1, "items": [{"n": 2}, {"n": 3, "s": "y"}], "by_key": {"k": {"n": 4}}}`, nil, ""},
		{"trailing white space", "{\"a\": 1}\n\t \r\n", nil, ""},
		{"empty", "", ErrEmpty, "empty"},
		{"only white space", " \n", ErrEmpty, "empty"},
		{"truncated", `{"a": 1, "b`, ErrTruncated, "truncated"},
		{"byte-order mark", "\xEF\xBB\xBF{\"a\": 1}", ErrBOM, "byte-order mark; save the file without it"},
		{"a second value", `{"a": 1}{"a": 2}`, ErrTrailing, "data after its JSON value (from byte 8)"},
		{"garbage after", "{\"a\": 1}\nxyz", ErrTrailing, "data after"},
		{"a stray brace after", `{"a": 1}}`, ErrTrailing, "data after"},
		{"unknown field", `{"a": 1, "c": 2}`, ErrUnknownField, `unknown field "c"`},
		{"unknown nested field", `{"a": 1, "items": [{"n": 1, "colour": 2}]}`, ErrUnknownField, `unknown field "colour" in /items/0`},
		{"name in another case", `{"A": 1}`, ErrUnknownField, `unknown field "A" (field names are case-sensitive)`},
		{"nested name in another case", `{"a": 1, "items": [{"N": 1}]}`, ErrUnknownField, `unknown field "N" in /items/0`},
		{"duplicate field", `{"a": 1, "b": "x", "a": 2}`, ErrDuplicateName, `"a" (byte 19); keep one`},
		{"duplicate nested field", `{"a": 1, "items": [{"n": 1, "n": 2}]}`, ErrDuplicateName, `"n" in /items/0`},
		{"duplicate map key", `{"a": 1, "by_key": {"k": {"n": 1}, "k": {"n": 2}}}`, ErrDuplicateName, `"k" in /by_key`},
		{"missing required field", `{"b": "x"}`, ErrMissingField, `missing field "a"`},
		{"missing nested required field", `{"a": 1, "items": [{"n": 1}, {"s": "x"}]}`, ErrMissingField, `missing field "n" in /items/1`},
		{"missing required field in a map value", `{"a": 1, "by_key": {"k": {}}}`, ErrMissingField, `missing field "n" in /by_key/k`},
		{"wrong type", `{"a": "one"}`, nil, "/a: cannot read a JSON string as a Go int"},
		{"number out of range", `{"a": 1, "f": 1e39}`, nil, "/f: cannot read a JSON number 1e39 as a Go float32"},
		{"invalid UTF-8", "{\"a\": 1, \"b\": \"\xff\"}", nil, "invalid UTF-8"},
		{"not JSON", `hello`, nil, "invalid character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r record
			err := Decode(strings.NewReader(tc.in), &r)
			switch {
			case tc.text == "" && err != nil:
				t.Fatalf("Decode: %v", err)
			case tc.text == "":
				if r.A != 1 {
					t.Errorf("decoded %+v, want a = 1", r)
				}
			case err == nil || !strings.Contains(err.Error(), tc.text):
				t.Fatalf("error %v, want one saying %q", err, tc.text)
			case tc.want != nil && !errors.Is(err, tc.want):
				t.Fatalf("error %v does not wrap %v", err, tc.want)
			}
		})
	}
}

// TestDecodeValues checks what the strict decoder reads where encoding/json
// is the writer: float32 numbers rounded to the nearest float32, durations
// in nanoseconds, nested values in place.
func TestDecodeValues(t *testing.T) {
	var r record
	in := `{"a": 1, "f": 0.1000000001, "d": 1500, "items": [{"n": 7, "s": "é"}], "by_key": {"k": {"n": 8}}}`
	if err := Decode(strings.NewReader(in), &r); err != nil {
		t.Fatal(err)
	}
	if r.F != float32(0.1) {
		t.Errorf("f = %v, want float32(0.1)", r.F)
	}
	if r.D != 1500*time.Nanosecond {
		t.Errorf("d = %v, want 1.5µs", r.D)
	}
	if len(r.Items) != 1 || r.Items[0] != (item{7, "é"}) || r.ByKey["k"].N != 8 {
		t.Errorf("decoded %+v", r)
	}
}
