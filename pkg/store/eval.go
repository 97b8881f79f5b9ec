package store

// EvalOptions are the knobs of a search for tests, benchmarks and
// evaluation scripts; the daemon never sets them, and Search is Evaluate
// without any.
type EvalOptions struct {
	// Descend scores by descending the summary tree, with pkg/tree's
	// guarantee, instead of through the inverted index. The answer is the
	// same (both are exhaustive-equivalent); the cost is not (see score),
	// so searches use the index, and tests and benchmarks set this to
	// prove and measure the descent.
	Descend bool
	// Plain ranks without the timeline: no memory is superseded by a
	// newer value or a correction (the clue and trust still count). Tests
	// compare the corrections table against it.
	Plain bool
}

// Evaluation is a search's answer with the ranking behind it.
type Evaluation struct {
	SearchResult
	// Ranked is the ranking itself, up to the limit, whatever the verdict:
	// for benchmarks and tools that measure retrieval, not for answers. Its
	// leaves are headers: their texts stay in the files (see texts.go).
	Ranked []Hit
}

// Evaluate is Search for tests, benchmarks and evaluation scripts (such as
// scripts/locomo): the same answer, searched as opts says, with the
// ranking behind it.
func (s *Store) Evaluate(in SearchInput, opts EvalOptions) (Evaluation, error) {
	res, ranked, err := s.search(in, opts, true)
	return Evaluation{SearchResult: res, Ranked: ranked}, err
}
