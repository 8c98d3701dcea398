// Package jsonfiletest edits JSON documents field by field for tests of
// strict readers: a document without one field, or with one field set to a
// number written exactly as given.
package jsonfiletest

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// Without returns doc without the field at path (object names and array
// indices separated by "/", such as "model/config/boundary"). The test
// fails if doc has no such field.
func Without(t testing.TB, doc []byte, path string) []byte {
	t.Helper()
	return edit(t, doc, path, func(obj map[string]any, name string) { delete(obj, name) }, nil)
}

// Set returns doc with the value at path (as for Without, or an array
// element such as "update/0/logits/3") set to v. A json.Number is written
// exactly as given.
func Set(t testing.TB, doc []byte, path string, v any) []byte {
	t.Helper()
	return edit(t, doc, path, func(obj map[string]any, name string) { obj[name] = v }, func(arr []any, i int) { arr[i] = v })
}

// edit decodes doc, calls inObject on the object holding the field at path
// (or inArray on the array holding the element) and encodes the document
// again, every number as it was written.
func edit(t testing.TB, doc []byte, path string, inObject func(obj map[string]any, name string), inArray func(arr []any, i int)) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var root any
	if err := dec.Decode(&root); err != nil {
		t.Fatal(err)
	}
	node, parent, key := root, any(nil), ""
	for k := range strings.SplitSeq(path, "/") {
		parent, key = node, k
		node = child(node, k)
	}
	switch p := parent.(type) {
	case map[string]any:
		if _, has := p[key]; has {
			inObject(p, key)
			break
		}
		t.Fatalf("the document has no %s", path)
	case []any:
		if i, err := strconv.Atoi(key); err == nil && i >= 0 && i < len(p) && inArray != nil {
			inArray(p, i)
			break
		}
		t.Fatalf("the document has no %s", path)
	default:
		t.Fatalf("the document has no %s", path)
	}
	out, err := json.Marshal(root)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// child returns the value named k in the object or array node, nil if none.
func child(node any, k string) any {
	switch n := node.(type) {
	case map[string]any:
		return n[k]
	case []any:
		if i, err := strconv.Atoi(k); err == nil && i >= 0 && i < len(n) {
			return n[i]
		}
	}
	return nil
}
