package ihmtv1

import (
	"fmt"
	"strings"
)

// The wire's vocabulary: the words people and models use for the API's
// enums — the scope a save takes or a search sees, a memory's trust, what a
// save, search or ingest came to — and the one message for a word that is
// not one of them. Hand-written, beside the generated code, so that the shim,
// the CLI and the daemon read and write the same words.

// WordError is the one error for a word a field does not take: it names the
// field, the word and every word the field takes, e.g.
// `scope "nowhere": use global or project`.
type WordError struct {
	Field string   // the field, e.g. "scope"
	Word  string   // what was given
	Valid []string // what it may be, in the order people are told
}

func (e *WordError) Error() string {
	return fmt.Sprintf("%s %q: %s", e.Field, e.Word, hint(e.Valid))
}

// hint tells someone who gave something else which words there are:
// "use global or project".
func hint(valid []string) string { return "use " + orList(valid) }

// orList joins words as a sentence does: "a", "a or b", "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// vocabulary maps one enum's values to their words and back.
type vocabulary[E interface {
	comparable
	String() string
}] struct {
	field  string // named in a WordError
	prefix string // of the generated value names, e.g. "SCOPE_"
	words  []word[E]
	// blank is what an empty word means; absent means "" is refused.
	blank *E
}

type word[E any] struct {
	text  string
	value E
}

// parse returns the value a word stands for.
func (v vocabulary[E]) parse(s string) (E, error) {
	if s == "" && v.blank != nil {
		return *v.blank, nil
	}
	for _, w := range v.words {
		if w.text == s {
			return w.value, nil
		}
	}
	var zero E
	return zero, &WordError{Field: v.field, Word: s, Valid: v.valid()}
}

// name returns a value's word. A value without one (UNSPECIFIED, or a number
// from a newer peer) reads as its generated name, lower case and without
// the prefix, so nothing is ever shown blank.
func (v vocabulary[E]) name(e E) string {
	for _, w := range v.words {
		if w.value == e {
			return w.text
		}
	}
	return strings.ToLower(strings.TrimPrefix(e.String(), v.prefix))
}

func (v vocabulary[E]) valid() []string {
	out := make([]string, len(v.words))
	for i, w := range v.words {
		out[i] = w.text
	}
	return out
}

func (v vocabulary[E]) hint() string { return hint(v.valid()) }

func ptr[E any](e E) *E { return &e }

var (
	scopes = vocabulary[Scope]{field: "scope", prefix: "SCOPE_", blank: ptr(Scope_SCOPE_UNSPECIFIED), words: []word[Scope]{
		{"global", Scope_SCOPE_GLOBAL}, {"project", Scope_SCOPE_PROJECT},
	}}
	searchScopes = vocabulary[SearchScope]{field: "scope", prefix: "SEARCH_SCOPE_", blank: ptr(SearchScope_SEARCH_SCOPE_DEFAULT_UNSPECIFIED), words: []word[SearchScope]{
		{"default", SearchScope_SEARCH_SCOPE_DEFAULT_UNSPECIFIED}, {"project", SearchScope_SEARCH_SCOPE_PROJECT},
		{"global", SearchScope_SEARCH_SCOPE_GLOBAL}, {"all", SearchScope_SEARCH_SCOPE_ALL},
	}}
	trusts = vocabulary[Trust]{field: "trust", prefix: "TRUST_", words: []word[Trust]{
		{"asserted", Trust_TRUST_ASSERTED}, {"verified", Trust_TRUST_VERIFIED},
		{"pending", Trust_TRUST_PENDING}, {"rejected", Trust_TRUST_REJECTED},
	}}
	saveStatuses = vocabulary[SaveStatus]{field: "status", prefix: "SAVE_STATUS_", words: []word[SaveStatus]{
		{"saved", SaveStatus_SAVE_STATUS_SAVED}, {"duplicate", SaveStatus_SAVE_STATUS_DUPLICATE},
		{"pending_review", SaveStatus_SAVE_STATUS_PENDING_REVIEW}, {"refused", SaveStatus_SAVE_STATUS_REFUSED},
	}}
	searchStatuses = vocabulary[SearchStatus]{field: "status", prefix: "SEARCH_STATUS_", words: []word[SearchStatus]{
		{"found", SearchStatus_SEARCH_STATUS_FOUND}, {"ambiguous", SearchStatus_SEARCH_STATUS_AMBIGUOUS},
		{"not_found", SearchStatus_SEARCH_STATUS_NOT_FOUND},
	}}
	ingestStatuses = vocabulary[IngestStatus]{field: "status", prefix: "INGEST_STATUS_", words: []word[IngestStatus]{
		{"saved", IngestStatus_INGEST_STATUS_SAVED}, {"unchanged", IngestStatus_INGEST_STATUS_UNCHANGED},
		{"pending_review", IngestStatus_INGEST_STATUS_PENDING_REVIEW}, {"refused", IngestStatus_INGEST_STATUS_REFUSED},
	}}
)

// ParseScope reads the scope of a save or an ingest: "global", "project",
// or "" for the caller's project when it has one (else global). Any other
// word is a *WordError.
func ParseScope(s string) (Scope, error) { return scopes.parse(s) }

// ScopeName is a memory's scope as a word: "global" or "project".
func ScopeName(s Scope) string { return scopes.name(s) }

// ScopeHint is how a refusal of a save's scope ends, "use global or
// project": for a refusal of what is not a word (an enum number this side
// does not know), so that it lists the same words as a WordError.
func ScopeHint() string { return scopes.hint() }

// ParseSearchScope reads what a search (or a listing) may see: "default"
// or "" (global + the caller's project), "project", "global" or "all"
// (every project). Any other word is a *WordError.
func ParseSearchScope(s string) (SearchScope, error) { return searchScopes.parse(s) }

// SearchScopeHint is ScopeHint for a search's scope: "use default,
// project, global or all".
func SearchScopeHint() string { return searchScopes.hint() }

// ParseTrust reads a trust state: "asserted", "verified", "pending" or
// "rejected". Any other word, "" included, is a *WordError.
func ParseTrust(s string) (Trust, error) { return trusts.parse(s) }

// TrustName is a trust state as a word.
func TrustName(t Trust) string { return trusts.name(t) }

// SaveStatusName is what a save came to: "saved", "duplicate",
// "pending_review" or "refused".
func SaveStatusName(s SaveStatus) string { return saveStatuses.name(s) }

// SearchStatusName is a search's verdict: "found", "ambiguous" or
// "not_found".
func SearchStatusName(s SearchStatus) string { return searchStatuses.name(s) }

// IngestStatusName is what an ingested document came to: "saved",
// "unchanged", "pending_review" or "refused".
func IngestStatusName(s IngestStatus) string { return ingestStatuses.name(s) }

// CandidateExcerptRunes bounds a Candidate's excerpt: enough to tell
// candidates apart, short enough to list several on one screen.
const CandidateExcerptRunes = 160

// Excerpt is the opening of a text on one line: its whitespace runs
// collapsed to single spaces, cut to at most maxRunes runes with "…" when it
// is longer. A Candidate's excerpt is one (of CandidateExcerptRunes); so
// is a rival's line in the shim's compact answer.
func Excerpt(text string, maxRunes int) string {
	r := []rune(strings.Join(strings.Fields(text), " "))
	if len(r) <= maxRunes {
		return string(r)
	}
	return string(r[:maxRunes]) + "…"
}

// FactorText is a trace's factor as people and models read it: "home ×1.20"
// for a multiplier, "holding: moved first: …" for a move.
func FactorText(f *Factor) string {
	if f.GetValue() == 0 {
		return f.GetSignal() + ": " + f.GetNote()
	}
	return fmt.Sprintf("%s ×%.2f", f.GetSignal(), f.GetValue())
}
