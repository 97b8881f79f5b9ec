package tokenize

import (
	"strings"
	"testing"
)

// benchProse is about 1 KB of the kind of text a save indexes: English
// prose with identifiers, a date, a number and a Spanish aside.
var benchProse = strings.Repeat("2024-03-11 We decided to move the staging databases to PostgreSQL 17 because "+
	"parseHTTPRequest was slowing every request; the team agreed after testing it for weeks. "+
	"Luis said the migration scripts need reviewing before anyone runs them. "+
	"Nos mudamos a Valencia y estamos trabajando desde casa. ", 3)

// BenchmarkTerms is the query side: ns/op over about 1 KB (see -benchmem's MB/s).
func BenchmarkTerms(b *testing.B) {
	b.SetBytes(int64(len(benchProse)))
	for b.Loop() {
		Terms(benchProse)
	}
}

// BenchmarkEach is the index side: what a save pays to tokenize its text.
func BenchmarkEach(b *testing.B) {
	b.SetBytes(int64(len(benchProse)))
	n := 0
	for b.Loop() {
		Each(benchProse, func(string) { n++ })
	}
}
