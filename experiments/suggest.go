package experiments

import (
	"reflect"
	"strings"
)

// knownKeys are the dotted keys an experiment file may give ("lr",
// "target.file", "checks.size"), read from Config's toml tags so that a new
// setting is known as soon as it is added.
var knownKeys = keysOf(reflect.TypeFor[Config](), "")

// keysOf lists the toml keys of struct type t, each after prefix; the
// fields of embedded structs (Picture) count as the struct's own, and a
// table or array of tables lists its fields under its key.
func keysOf(t reflect.Type, prefix string) []string {
	var keys []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		ft := f.Type
		if ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct {
			ft = ft.Elem()
		}
		switch {
		case f.Anonymous:
			keys = append(keys, keysOf(ft, prefix)...)
		case name == "" || name == "-" || !f.IsExported():
		case ft.Kind() == reflect.Struct:
			keys = append(keys, prefix+name)
			keys = append(keys, keysOf(ft, prefix+name+".")...)
		default:
			keys = append(keys, prefix+name)
		}
	}
	return keys
}

// suggestKey returns the known key closest to the unknown key (an array of
// tables' index dropped: "checks[1].sise" is compared as "checks.sise"), or
// "" when none is close: at most two edits away, and fewer than half the
// key's letters.
func suggestKey(key string) string {
	plain := key
	for {
		i := strings.IndexByte(plain, '[')
		j := strings.IndexByte(plain, ']')
		if i < 0 || j < i {
			break
		}
		plain = plain[:i] + plain[j+1:]
	}
	best, bestDist := "", 3
	for _, k := range knownKeys {
		if d := editDistance(plain, k); d < bestDist && 2*d < len(plain) {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the Damerau-Levenshtein distance (optimal string
// alignment) between a and b: the fewest insertions, deletions,
// substitutions and swaps of neighbouring letters that turn a into b, so
// that "bacth" is one edit from "batch".
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
