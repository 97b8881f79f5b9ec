package recall

import (
	"slices"
	"strings"
	"unicode"

	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/lexicon/words"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// A project's own words: the common nouns a project is described by where
// a memory defines it ("canopy is Pampero's vector tile server: …",
// "sextante: my open-source Python library that …"). Asked from inside the
// project, "the tile server" or "the library" means the project itself, so
// those words say nothing about which of its memories answers — yet only
// the defining memory holds them, and it would outrank the one that does
// ("What Python does the tile server's image ship with?" is answered by
// "canopy base image is python:3.13-slim", not by the project's
// description). Only lower-case words count: a description's product names
// ("Vue 3 + Vite frontend") are what questions ask about.

// maxSelfWords bounds how many words of a definition describe a project,
// maxSelfScan how far into it they are looked for.
const (
	maxSelfWords = 4
	maxSelfScan  = 8
)

// SelfWords returns the terms of the description a text gives of project
// (a project key: its last path element is the name a text uses),
// when it opens by defining it ("<project> is a…", "<project> es un…",
// "<project>: Pampero's…"); nil otherwise. The description runs from after
// the article or possessive to the first function word or punctuation.
func SelfWords(project, text string) []string {
	if project == "" {
		return nil
	}
	name := project[strings.LastIndexAny(project, "/:")+1:] // "kelpie" of github.com/brightkelp/kelpie
	words := strings.Fields(text)
	if len(words) < 3 || !strings.EqualFold(strings.TrimRight(words[0], ":"), name) {
		return nil
	}
	rest := words[1:]
	if !strings.HasSuffix(words[0], ":") {
		if !definingVerb[strings.ToLower(rest[0])] {
			return nil
		}
		rest = rest[1:]
	}
	// A definition names a kind of thing: "is a…", "is Pampero's…", not
	// "is configured…" or "is hosted on…".
	if first := strings.ToLower(rest[0]); !articles[first] && !possessive(first) {
		return nil
	}
	var kept []string
	for i, w := range rest {
		if i == maxSelfScan || len(kept) == maxSelfWords {
			break
		}
		bare := strings.TrimRightFunc(w, unicode.IsPunct)
		low := strings.ToLower(bare)
		ends := bare != w // punctuation ends the description
		switch {
		case articles[low] && len(kept) == 0:
			continue
		case bare == "" || bare != low || strings.ContainsFunc(bare, unicode.IsDigit) || possessive(low):
			// a name, a version or a possessive: what questions ask about
		case tokenize.IsStopWord(low):
			ends = true
		default:
			kept = append(kept, bare)
		}
		if ends {
			break
		}
	}
	return tokenize.Terms(strings.Join(kept, " "))
}

func possessive(w string) bool { return strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "’s") }

var definingVerb = words.Set("defining_verbs")

var articles = words.Set("articles")

// Definer is a memory that defines its project ("canopy is Pampero's
// vector tile server: …"), and the words it does so with: the store finds
// them when the memory is saved.
type Definer struct {
	Doc   index.Doc
	Words []string
}

// unselfed returns terms without the words by which the question calls
// the project asked from what one of its live defining memories calls it:
// the description's head noun, with the words before it the question
// gives too, in order ("the tile server", "the server"; not "tiles" alone,
// which is a topic of the project, not its name). Not when the question
// names a project, nor when nothing else would be left. A definition
// since corrected, while live, still counts.
func (s *searcher) unselfed(terms []string, from string) []string {
	g, ok := s.r.Group(from)
	if !ok || from == "" {
		return terms
	}
	defs := s.r.Definers(g)
	if len(defs) == 0 || len(s.projectsNamed(terms)) > 0 {
		return terms
	}
	drop := map[string]bool{}
	for _, df := range defs {
		if s.leaf(df.Doc).Live() {
			for _, t := range calledBy(terms, df.Words) {
				drop[t] = true
			}
		}
	}
	out := slices.DeleteFunc(slices.Clone(terms), func(t string) bool { return drop[t] })
	if len(out) == 0 {
		return terms
	}
	return out
}

// calledBy returns the longest end of description (its head noun and the
// words before it) that terms hold in order, one after another.
func calledBy(terms, description []string) []string {
	head := description[len(description)-1]
	at := slices.Index(terms, head)
	if at < 0 {
		return nil
	}
	n := 1
	for n < len(description) && at-n >= 0 && terms[at-n] == description[len(description)-1-n] {
		n++
	}
	return description[len(description)-n:]
}
