package store

import (
	"github.com/ihmt-dev/ihmt/pkg/facts"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/recall"
)

// factKind is what the fact extractor is told a leaf is.
func factKind(k recall.Kind) facts.Kind {
	switch k {
	case recall.KindCode:
		return facts.Code
	case recall.KindDocument:
		return facts.Document
	}
	return facts.Stated
}

// lends reports whether a leaf of this kind takes part in the neighbour
// links of memories saved one after another (linkNeighbours): a
// conversation's turns, or an agent's notes during one task, explain each
// other; the blocks of a document are already whole, and lending them
// each other's words lets a lone closing brace rank for its class.
func lends(l *leaf.Leaf) bool { return l.Source == nil }
