package tomlerr

import (
	"fmt"
	"regexp"
	"strings"
)

// go-toml's messages for a value of the wrong type name Go's types
// ("cannot decode TOML string into struct field experiments.Config.LR of
// type float64"), but the user wrote TOML, not Go: Plain says what the key
// wants in TOML's words.
var (
	typeMismatch     = regexp.MustCompile(`^cannot decode TOML (\w+) into struct field \S+ of type (.+)$`)
	negativeUnsigned = regexp.MustCompile(`^negative integer value (\S+) cannot be stored in uint\d*$`)
)

// Plain rewrites a go-toml decoding message (its "toml: " prefix
// dropped) that names Go's types; others it returns as they are, without
// the prefix.
func Plain(msg string) string {
	msg = strings.TrimPrefix(msg, "toml: ")
	if m := typeMismatch.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("want %s, not %s %s", wanted(m[2]), article(m[1]), m[1])
	}
	if m := negativeUnsigned.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("want a whole number, 0 or more, not %s", m[1])
	}
	return msg
}

// wanted describes the TOML values a Go type decodes from.
func wanted(goType string) string {
	elem, many := strings.CutPrefix(goType, "[]")
	one, all := "", ""
	switch {
	case elem == "float32" || elem == "float64":
		one, all = "a number", "numbers"
	case strings.HasPrefix(elem, "uint"):
		one, all = "a whole number, 0 or more", "whole numbers, 0 or more"
	case strings.HasPrefix(elem, "int"):
		one, all = "a whole number", "whole numbers"
	case elem == "bool":
		one, all = "true or false", "trues and falses"
	case elem == "string":
		one, all = "a string in quotes", "strings in quotes"
	default: // a struct or a map: a table of keys
		one, all = "a table (key = value lines, or { key = value })", "tables"
	}
	if many {
		return "an array of " + all + " ([a, b, ...])"
	}
	return one
}

// article is "an" before a vowel, "a" otherwise.
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}
