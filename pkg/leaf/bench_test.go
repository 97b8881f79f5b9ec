package leaf

import (
	"strings"
	"testing"
)

// BenchmarkParse is what opening a store pays per leaf file on top of
// reading it: a header as a save writes it and a text of a few hundred
// bytes. A large store parses every leaf at each start.
func BenchmarkParse(b *testing.B) {
	l := sample(strings.Repeat("Staging uses Yarn 16.29.2 on ci-runner-3; production runs on Scaleway. ", 5))
	data, err := Encode(l)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
