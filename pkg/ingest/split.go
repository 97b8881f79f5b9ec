package ingest

import (
	"strings"
	"time"
	"unicode/utf8"
)

// Type is the kind of a text, which decides how it is split.
type Type string

// The types of text Detect recognises.
const (
	TypeCode      Type = "code"      // source code
	TypeNarrative Type = "narrative" // stories, essays, long prose
	TypeTemporal  Type = "temporal"  // journals, chats, dated notes
	TypeClinical  Type = "clinical"  // clinical notes and histories
	TypeProcess   Type = "process"   // recipes, runbooks, protocols
	TypeGeneric   Type = "generic"   // anything else
)

// DefaultMaxBytes is the size up to which small blocks are packed together
// when Options.MaxBytes is zero.
const DefaultMaxBytes = 4096

// Detection is what Detect concluded about a text.
type Detection struct {
	Type Type
	// Domain places the text in the memory's outline: "software.go",
	// "software.python", "personal", "process.cooking",
	// "process.runbook", "medicine.clinical", "literature", "general".
	Domain string
	// Language is the programming language of code ("go", "python",
	// "typescript", …), empty for other types.
	Language string
}

// Options tune Split. The zero value detects everything and packs up to
// DefaultMaxBytes.
type Options struct {
	// Type overrides the detected type; an unknown value splits as generic.
	Type Type
	// Domain overrides the detected domain. A "software.<language>" domain
	// for a language Split knows also implies TypeCode in that language
	// when Type is empty.
	Domain string
	// MaxBytes is the packing limit; zero or less means DefaultMaxBytes.
	MaxBytes int
}

// Block is one leaf-to-be: a run of the input that holds whole logical
// blocks.
type Block struct {
	// Text is exactly the bytes of the input this block covers.
	Text   string
	Type   Type
	Domain string
	// ValidFrom is the date the block's entry (temporal) or visit
	// (clinical) carries; zero when there is none.
	ValidFrom time.Time
	// Oversized marks a single logical block bigger than MaxBytes, stored
	// whole rather than cut.
	Oversized bool
	// Context is, for a member split out of an oversized class (struct,
	// impl, namespace…), the enclosing header line(s), outermost first,
	// e.g. "public class Foo extends Bar {". It belongs in the leaf's
	// metadata: it is not part of Text.
	Context string
	// Title is a short name for the block: the declaration's name, the
	// heading, or the first words.
	Title string
}

// Split detects the type and domain of text (unless opts overrides them)
// and splits it into blocks whose Texts concatenate back to text exactly.
// name is the file name, or "" when there is none; only its extension is
// used. An empty text has no blocks.
func Split(name, text string, opts Options) (Detection, []Block) {
	det := resolve(name, text, opts)
	max := opts.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	if text == "" {
		return det, nil
	}
	var units []unit
	switch det.Type {
	case TypeCode:
		units = splitCode(det.Language, text, max)
	case TypeNarrative:
		units = splitProse(text, max, true)
	case TypeTemporal:
		units = splitTemporal(text, max)
	case TypeClinical:
		units = splitClinical(text, max)
	case TypeProcess:
		units = splitProcess(text, max)
	default:
		units = splitProse(text, max, false)
	}
	if !covers(units, len(text)) {
		// A splitter bug must never lose or duplicate a byte: fall back to
		// one block, and make the tests see it.
		if strictInvariant {
			panic("ingest: units do not cover the input")
		}
		units = []unit{{start: 0, end: len(text)}}
	}
	return det, pack(text, units, max, det)
}

// resolve applies the caller's overrides to what Detect finds.
func resolve(name, text string, opts Options) Detection {
	typ := opts.Type
	if typ != "" {
		typ = known(typ)
	}
	// A "software.<language>" domain names the language.
	if lang, ok := strings.CutPrefix(opts.Domain, "software."); ok && (typ == "" || typ == TypeCode) && splittable(lang) {
		return Detection{Type: TypeCode, Domain: opts.Domain, Language: lang}
	}
	if typ != "" && typ != TypeCode && opts.Domain != "" {
		return Detection{Type: typ, Domain: opts.Domain}
	}
	det := Detect(name, text)
	if typ != "" && typ != det.Type {
		det.Type, det.Language = typ, ""
		if typ == TypeCode {
			det.Language = guessLanguage(sample(text))
		}
		det.Domain = defaultDomain(det.Type, det.Language)
	}
	if opts.Domain != "" {
		det.Domain = opts.Domain
	}
	return det
}

func known(t Type) Type {
	switch t {
	case TypeCode, TypeNarrative, TypeTemporal, TypeClinical, TypeProcess, TypeGeneric:
		return t
	}
	return TypeGeneric
}

func defaultDomain(t Type, lang string) string {
	switch t {
	case TypeCode:
		if lang == "" {
			return "software"
		}
		return "software." + lang
	case TypeTemporal:
		return "personal"
	case TypeClinical:
		return "medicine.clinical"
	case TypeProcess:
		return "process"
	case TypeNarrative:
		return "literature"
	}
	return "general"
}

// strictInvariant turns a splitter's coverage bug into a panic; tests set it.
var strictInvariant = false

// unit is a splitter's output: a run of the input that is never cut.
type unit struct {
	start, end int
	hard       bool      // never packed with the unit before it
	solo       bool      // never packed with any other unit
	ctx        string    // Block.Context
	date       time.Time // Block.ValidFrom
	title      string    // a name (declaration, heading); wins over weak
	weak       string    // a fallback title: the unit's first words
}

// covers reports whether units tile [0, n) in order with no empty unit.
func covers(units []unit, n int) bool {
	at := 0
	for _, u := range units {
		if u.start != at || u.end <= u.start {
			return false
		}
		at = u.end
	}
	return at == n
}

// pack folds whitespace-only units into a neighbour, then packs adjacent
// units into blocks of at most max bytes where nothing forbids it: a hard
// boundary, a solo unit, a different Context, a different day.
func pack(text string, units []unit, max int, det Detection) []Block {
	// Fold blank units into the previous unit (the first one into the next).
	folded := make([]unit, 0, len(units))
	for i, u := range units {
		if isBlank(text[u.start:u.end]) {
			if len(folded) > 0 {
				folded[len(folded)-1].end = u.end
				if u.hard && i+1 < len(units) {
					units[i+1].hard = true
				}
				continue
			}
			if i+1 < len(units) {
				units[i+1].start = u.start
				units[i+1].hard = units[i+1].hard || u.hard
				continue
			}
		}
		folded = append(folded, u)
	}

	blocks := make([]Block, 0, len(folded)/4+1)
	var cur unit
	var titles []string
	var weak string
	flush := func() {
		t := text[cur.start:cur.end]
		title := weak
		switch {
		case len(titles) > 0 && det.Type == TypeCode:
			title = strings.Join(titles, ", ")
		case len(titles) > 0:
			title = titles[0]
		}
		blocks = append(blocks, Block{
			Text:      t,
			Type:      det.Type,
			Domain:    det.Domain,
			ValidFrom: cur.date,
			Oversized: len(strings.TrimSpace(t)) > max,
			Context:   cur.ctx,
			Title:     clip(title, 80),
		})
	}
	// In code, a declaration big enough to be read on its own is a leaf of
	// its own: a search for a method should find the method, not the
	// method packed behind the fields and helpers around it.
	alone := max + 1
	if det.Type == TypeCode {
		alone = max / 8
	}
	for i, u := range folded {
		if i > 0 && !u.hard && !u.solo && !cur.solo && u.ctx == cur.ctx &&
			sameDay(u.date, cur.date) && u.end-cur.start <= max && u.end-u.start <= alone && cur.end-cur.start <= alone {
			cur.end = u.end
			if u.title != "" {
				titles = append(titles, u.title)
			}
			continue
		}
		if i > 0 {
			flush()
		}
		cur, titles, weak = u, nil, u.weak
		if u.title != "" {
			titles = append(titles, u.title)
		}
	}
	if len(folded) > 0 {
		flush()
	}
	return blocks
}

func sameDay(a, b time.Time) bool {
	if a.IsZero() || b.IsZero() {
		return a.IsZero() == b.IsZero()
	}
	ay, am, ad := a.Date()
	by, bm, bd := b.Date()
	return ay == by && am == bm && ad == bd
}

// clip shortens s to at most n bytes at a rune boundary, marking the cut.
func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + "…"
}
