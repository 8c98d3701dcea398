// Package jsonfile decodes the JSON files this project reads (model files,
// checkpoints, run records, netlists) strictly, with one set of rules and
// messages:
//
//   - exactly one JSON value: no byte-order mark first, nothing after the
//     value but white space;
//   - object field names match the Go struct's exactly (case included),
//     each at most once in an object, and a name the struct has no place
//     for is an error;
//   - a struct field tagged `jsonfile:"required"` must be present;
//   - strings are valid UTF-8; numbers fit their Go type (a float32 field
//     reads the JSON number rounded to the nearest float32, as
//     strconv.ParseFloat(s, 32) does);
//   - a time.Duration is a number of nanoseconds, as encoding/json writes it.
//
// Go's encoding/json is lenient on most of these (it matches names without
// regard to case, lets the last of two equal names win and reads past a
// missing field), so the decoding is done by github.com/go-json-experiment/json,
// the JSON v2 proposal, whose defaults are these rules. The files themselves
// are written with encoding/json, which writes what this package reads.
package jsonfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// The errors Decode wraps, for callers that say more about what to do.
var (
	ErrEmpty         = errors.New("the file is empty")
	ErrTruncated     = errors.New("the file is truncated (unexpected end of JSON)")
	ErrBOM           = errors.New("the file starts with a UTF-8 byte-order mark; save the file without it")
	ErrTrailing      = errors.New("the file has data after its JSON value")
	ErrUnknownField  = errors.New("unknown field")
	ErrDuplicateName = errors.New("a field appears twice")
	ErrMissingField  = errors.New("missing field")
)

// bom is the UTF-8 byte-order mark, which some editors put first.
var bom = []byte{0xEF, 0xBB, 0xBF}

// options are the decoding rules beyond JSON v2's defaults (which already
// match names exactly and refuse duplicate names and invalid UTF-8).
var options = json.JoinOptions(json.RejectUnknownMembers(true), jsonv1.FormatDurationAsNano(true))

// Decode reads one JSON value from r into v (a pointer) by the rules of the
// package doc and checks that r holds nothing else. The error wraps
// ErrEmpty, ErrTruncated, ErrBOM, ErrTrailing, ErrUnknownField,
// ErrDuplicateName or ErrMissingField where one of them is the cause, and
// names the place in the document (a JSON pointer such as
// /perception/0/logits) where there is one.
func Decode(r io.Reader, v any) error {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(len(bom)); bytes.Equal(head, bom) {
		return ErrBOM
	}
	dec := jsontext.NewDecoder(br)
	value, err := dec.ReadValue()
	switch {
	case errors.Is(err, io.EOF):
		return ErrEmpty
	case errors.Is(err, io.ErrUnexpectedEOF):
		return ErrTruncated
	case err != nil:
		return describe(err)
	}
	value = value.Clone() // ReadToken reuses the decoder's buffer
	// NOTE: ReadToken skips white space; anything else is a second value
	// or garbage, both signs of a damaged or concatenated file.
	end := dec.InputOffset()
	if _, err := dec.ReadToken(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w (from byte %d)", ErrTrailing, end)
	}
	if err := json.Unmarshal(value, v, options); err != nil {
		return describe(err)
	}
	var tree any
	if err := json.Unmarshal(value, &tree); err != nil {
		return describe(err)
	}
	return checkRequired(reflect.TypeOf(v), tree, "")
}

// describe rewords the JSON v2 package's errors, which name Go types and
// vary their wording from run to run, into messages about the file.
func describe(err error) error {
	var syn *jsontext.SyntacticError
	var sem *json.SemanticError
	switch {
	case errors.As(err, &syn) && errors.Is(syn.Err, jsontext.ErrDuplicateName):
		return fmt.Errorf("%w: %q%s (byte %d); keep one", ErrDuplicateName, syn.JSONPointer.LastToken(), in(syn.JSONPointer.Parent()), syn.ByteOffset)
	case errors.As(err, &sem) && errors.Is(sem.Err, json.ErrUnknownName):
		return fmt.Errorf("%w %q%s (field names are case-sensitive)", ErrUnknownField, sem.JSONPointer.LastToken(), in(sem.JSONPointer.Parent()))
	case errors.As(err, &syn):
		return fmt.Errorf("invalid JSON at byte %d%s: %v", syn.ByteOffset, in(syn.JSONPointer), syn.Err)
	case errors.As(err, &sem):
		msg := "cannot read " + kindName(sem.JSONKind)
		if len(sem.JSONValue) > 0 && len(sem.JSONValue) < 40 {
			msg += " " + string(sem.JSONValue)
		}
		if sem.GoType != nil {
			msg += " as a Go " + sem.GoType.String()
		}
		if sem.JSONPointer != "" {
			msg = string(sem.JSONPointer) + ": " + msg
		}
		if sem.Err != nil {
			msg += ": " + sem.Err.Error()
		}
		return errors.New(msg)
	}
	return err
}

// in names the object or array at p, for messages.
func in(p jsontext.Pointer) string {
	if p == "" {
		return ""
	}
	return " in " + string(p)
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "JSON null"
	case 'f', 't':
		return "a JSON boolean"
	case '"':
		return "a JSON string"
	case '0':
		return "a JSON number"
	case '{':
		return "a JSON object"
	case '[':
		return "a JSON array"
	}
	return "the JSON value"
}

// checkRequired walks node, the decoded document as maps and slices,
// alongside t, the type it was decoded into, and returns an error naming
// the first field tagged `jsonfile:"required"` that an object lacks. at is
// node's JSON pointer. Embedded struct fields are not walked.
func checkRequired(t reflect.Type, node any, at string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, _ := node.(map[string]any)
		if obj == nil {
			return nil // null, which leaves the value as it was
		}
		for i := range t.NumField() {
			f := t.Field(i)
			name, ok := fieldName(f)
			if !ok {
				continue
			}
			child, present := obj[name]
			if !present {
				if f.Tag.Get("jsonfile") == "required" {
					return fmt.Errorf("%w %q%s", ErrMissingField, name, in(jsontext.Pointer(at)))
				}
				continue
			}
			if err := checkRequired(f.Type, child, at+"/"+name); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		if !holdsStruct(t.Elem()) {
			return nil
		}
		arr, _ := node.([]any)
		for i, e := range arr {
			if err := checkRequired(t.Elem(), e, at+"/"+strconv.Itoa(i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		if !holdsStruct(t.Elem()) {
			return nil
		}
		obj, _ := node.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(obj)) { // the same field named every time
			if err := checkRequired(t.Elem(), obj[k], at+"/"+k); err != nil {
				return err
			}
		}
	}
	return nil
}

// holdsStruct reports whether values of type t can hold a struct, the only
// place a required field can be.
func holdsStruct(t reflect.Type) bool {
	for {
		switch t.Kind() {
		case reflect.Struct:
			return true
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			t = t.Elem()
		default:
			return false
		}
	}
}

// fieldName returns the JSON name of struct field f, and false for a field
// that JSON does not see (unexported, embedded, or tagged "-").
func fieldName(f reflect.StructField) (string, bool) {
	if !f.IsExported() || f.Anonymous {
		return "", false
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	name, _, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	return name, true
}
