// Package jsonfile decodes the JSON files this project reads (model files,
// checkpoints, run records, netlists) strictly, with one set of rules and
// messages: exactly one JSON value, no unknown fields, no byte-order mark,
// nothing after the value but white space.
package jsonfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The errors Decode wraps, for callers that say more about what to do.
var (
	ErrEmpty     = errors.New("the file is empty")
	ErrTruncated = errors.New("the file is truncated (unexpected end of JSON)")
	ErrBOM       = errors.New("the file starts with a UTF-8 byte-order mark; save the file without it")
	ErrTrailing  = errors.New("the file has data after its JSON value")
)

// bom is the UTF-8 byte-order mark, which some editors put first.
var bom = []byte{0xEF, 0xBB, 0xBF}

// Decode reads one JSON value from r into v and checks that r holds
// nothing else. Object fields that v has no place for are errors. The
// error wraps ErrEmpty, ErrTruncated, ErrBOM or ErrTrailing where one of
// them is the cause.
func Decode(r io.Reader, v any) error {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(len(bom)); bytes.Equal(head, bom) {
		return ErrBOM
	}
	dec := json.NewDecoder(br)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		switch {
		case errors.Is(err, io.EOF):
			return ErrEmpty
		case errors.Is(err, io.ErrUnexpectedEOF):
			return ErrTruncated
		}
		return err
	}
	// NOTE: Token reads past white space; anything else is a second value
	// or garbage, both signs of a damaged or concatenated file.
	end := dec.InputOffset()
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w (from byte %d)", ErrTrailing, end)
	}
	return nil
}
