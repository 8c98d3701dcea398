package jsonfile

import (
	"errors"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	type record struct {
		A int    `json:"a"`
		B string `json:"b"`
	}
	for _, tc := range []struct {
		name, in string
		want     error  // a sentinel the error must wrap, if not nil
		text     string // what the error must say, "" for no error
	}{
		{"object", `{"a": 1, "b": "x"}`, nil, ""},
		{"trailing white space", "{\"a\": 1}\n\t \r\n", nil, ""},
		{"empty", "", ErrEmpty, "empty"},
		{"only white space", " \n", ErrEmpty, "empty"},
		{"truncated", `{"a": 1, "b`, ErrTruncated, "truncated"},
		{"byte-order mark", "\xEF\xBB\xBF{\"a\": 1}", ErrBOM, "byte-order mark; save the file without it"},
		{"a second value", `{"a": 1}{"a": 2}`, ErrTrailing, "data after its JSON value (from byte 8)"},
		{"garbage after", "{\"a\": 1}\nxyz", ErrTrailing, "data after"},
		{"a stray brace after", `{"a": 1}}`, ErrTrailing, "data after"},
		{"unknown field", `{"a": 1, "c": 2}`, nil, `unknown field "c"`},
		{"wrong type", `{"a": "one"}`, nil, "cannot unmarshal"},
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
