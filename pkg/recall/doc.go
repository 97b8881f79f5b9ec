// Package recall is the search: one pipeline, run top to bottom by
// Engine.Search, each stage a function of what the one before gave it:
//
//	parse      the question's words, clue, limit and moment (Parse)
//	rewrite    words that only point at a time or name the project asked
//	           from leave; the lexicon's words for the others join (rewrite)
//	score      BM25 over the inverted index, exhaustive-equivalent (score)
//	rerank     the signals that multiply a score, then those that move a
//	           memory within a window of the best (rerank)
//	supersede  a memory superseded at the moment ranks below its
//	           successor (supersede, inside rerank)
//	gather     the verdict's evidence (evidence)
//	judge      pkg/verdict decides found, ambiguous or not found (judged)
//	show       the hits, with notices, or the candidates (answer)
//
// It reads the store only through a Reader, which the store implements
// under its read lock, and links no code that writes the store. Every
// query-time factor is a row of the signal table (signals.go); a trace
// (explain.go) records what each one did.
package recall
