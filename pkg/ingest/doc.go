// Package ingest turns a text into the leaves a memory is stored as: it
// detects what kind of text it is (code, narrative, a journal, clinical
// notes, a recipe or runbook, anything else) and its domain, then splits it
// into blocks without ever cutting a logical block.
//
//	det, blocks := ingest.Split("server.go", src, ingest.Options{})
//	// det.Type == ingest.TypeCode, det.Domain == "software.go"
//	// each block: one declaration (or several small ones packed together)
//
// # The invariant
//
// Concatenating the Text of the blocks reproduces the input byte for byte:
// leading and trailing whitespace, CRLF line ends, a missing final newline
// and a byte-order mark all come back. No block is empty, and a run of
// blank lines is never a block of its own: it travels with a neighbour.
//
// # Why a logical block is never cut
//
// A memory a person reads must be whole: half a journal entry, a recipe
// without its steps or a diagnosis without its treatment misleads more than
// it helps. A search hit must carry a whole function: an agent that finds
// the first half of a function will reason about code that does not exist.
// So the unit of splitting is the logical block of each kind of text:
//
//   - code: the package clause and imports together, then each top-level
//     declaration with its doc comment and attributes;
//   - narrative: the paragraph; scene breaks (***, ---), chapter lines and
//     headings are boundaries nothing is packed across;
//   - temporal: the dated entry; a change of date is such a boundary too,
//     and the entry's date becomes the block's ValidFrom;
//   - clinical: a header (Diagnóstico:, Plan:, …) with its content; a dated
//     visit is a boundary;
//   - process: a heading with its ingredients and steps;
//   - generic: the paragraph.
//
// Small neighbouring blocks are packed together up to Options.MaxBytes,
// because a leaf holding one import line or one short paragraph is useless
// on its own. In code only declarations smaller than an eighth of it are
// packed: one big enough to read on its own is the hit a search for it
// wants, not a leaf where it follows the fields and helpers around it.
// The closing line of a split class ends its last member's block. A logical block bigger than MaxBytes is stored whole and
// flagged Oversized. Two exceptions split further, each at the next
// logical level: a narrative paragraph over the limit is split between
// sentences, and an oversized class, struct, impl, interface or namespace
// is split per member, each member carrying the enclosing header in
// Block.Context (metadata, not text, so the bytes still concatenate back).
//
// Splitting is lexical, never semantic: each language is read by a scanner
// that knows its comments and string literals (go/scanner for Go), so a
// brace inside a string or comment never moves a boundary. Broken input is
// split as well as it can be and still reproduces byte for byte.
//
// # Cost and limits
//
// Splitting is a few passes over the text — detection, one scan of its
// lines or tokens, packing — and keeps no more than the blocks it returns;
// BenchmarkSplitGo1MB and BenchmarkSplitJournal1MB give its speed. Code
// has a scanner for Go, Python, Java, JavaScript, TypeScript, C, C++, C#,
// Rust, Kotlin, Swift and PHP; any other language splits like generic text,
// at blank lines. Detection weighs words and line shapes, so a short or
// mixed text may be taken for another kind than a person would say (the
// caller can name the type and domain in Options), and a block ends only
// where the text's own structure ends one: a generic text without blank
// lines is one block however long, stored whole and flagged Oversized.
package ingest
