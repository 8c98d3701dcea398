package experiments

import (
	"bytes"
	"testing"
)

// FuzzParse feeds experiment files (TOML) through Parse and Resolve, as dlca
// train -config does. Its seeds, every built-in experiment as dlca config
// prints it, run as ordinary tests; to fuzz (docs/RELIABILITY.md):
//
//	go test ./experiments -run '^$' -fuzz '^FuzzParse$' -fuzztime 60s
func FuzzParse(f *testing.F) {
	for _, name := range Names() {
		c, err := Builtin(name)
		if err != nil {
			f.Fatal(err)
		}
		var b bytes.Buffer
		if err := c.WriteTOML(&b); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, "f.toml")
		if err != nil {
			if c != nil {
				t.Fatalf("a config and an error (%v)", err)
			}
			return
		}
		e, err := c.Resolve()
		if err != nil {
			return
		}
		m := e.Model
		if m.Height < 1 || m.Width < 1 || m.Channels < 1 || e.Batch < 1 || e.Steps < 1 || len(e.LossChannels) == 0 {
			t.Fatalf("resolved an experiment of a %dx%d grid, %d channels, batch %d, %d steps, loss channels %v", m.Height, m.Width, m.Channels, e.Batch, e.Steps, e.LossChannels)
		}
		// What resolves prints as a file that parses and resolves again.
		var b bytes.Buffer
		if err := c.WriteTOML(&b); err != nil {
			return // seeds beyond what a file holds are refused in words
		}
		again, err := Parse(b.Bytes(), "again.toml")
		if err != nil {
			t.Fatalf("printed file does not parse: %v\n%s", err, b.Bytes())
		}
		if _, err := again.Resolve(); err != nil {
			t.Fatalf("printed file does not resolve: %v\n%s", err, b.Bytes())
		}
	})
}
