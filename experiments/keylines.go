package experiments

import (
	"fmt"
	"strings"

	"github.com/pelletier/go-toml/v2/unstable"
)

// keyLines returns the line of every key of a TOML document (which must
// parse), by dotted name: "lr", "target.kind", "checks[1].size"; tables and
// arrays of tables too ("target", "checks[1]"). Keys inside inline tables
// and arrays are not listed: their table's line stands for them (see
// Config.at).
func keyLines(data []byte) map[string]int {
	lines := map[string]int{}
	var p unstable.Parser
	p.Reset(data)
	prefix := ""
	tables := map[string]int{} // array of tables -> entries so far
	for p.NextExpression() {
		e := p.Expression()
		name, line := keyOf(&p, e)
		switch e.Kind {
		case unstable.Table:
			prefix = name
		case unstable.ArrayTable:
			prefix = fmt.Sprintf("%s[%d]", name, tables[name])
			tables[name]++
		case unstable.KeyValue:
			if prefix != "" {
				name = prefix + "." + name
			}
		default:
			continue
		}
		lines[name] = line
	}
	return lines
}

// keyOf returns the dotted key of expression e and the line it starts on.
func keyOf(p *unstable.Parser, e *unstable.Node) (string, int) {
	var parts []string
	line := 0
	for it := e.Key(); it.Next(); {
		n := it.Node()
		parts = append(parts, string(n.Data))
		if line == 0 {
			line = p.Shape(n.Raw).Start.Line
		}
	}
	return strings.Join(parts, "."), line
}
