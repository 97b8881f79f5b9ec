package store

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/facts"
	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/lexicon"
	"github.com/ihmt-dev/ihmt/pkg/recall"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
)

// PatternsName is the file of a person's extra fact patterns in the store
// directory; pkg/facts documents its format.
const PatternsName = "patterns.json"

// LoadPatterns reads the fact patterns of the store in dir, for
// Options.Facts: the built-in ones, with the person's from PatternsName
// when the file is there.
func LoadPatterns(dir string) (*facts.Extractor, error) {
	return facts.Load(filepath.Join(dir, PatternsName))
}

// LexiconName is the file of a person's additions to the lexicon (what
// sentences are about, change words, what questions ask for, words that
// mean the same) in the store directory; pkg/lexicon documents its format.
const LexiconName = "lexicon.json"

// LoadLexicon reads the lexicon of the store in dir, for Options.Lexicon:
// the built-in one, with the person's additions from LexiconName when the
// file is there.
func LoadLexicon(dir string) (*lexicon.Lexicon, error) {
	return lexicon.Load(filepath.Join(dir, LexiconName))
}

// FactRow is one value of a subject's attribute in a view.
type FactRow struct {
	Key   timeline.Key
	Entry timeline.Entry
	// Current: the value in force in the view asked for.
	Current bool
}

// Scope names the partition the fact is in as people read it: "global",
// or the key of the project it belongs to.
func (r FactRow) Scope() string {
	if r.Key.Scope == "" {
		return leaf.ScopeGlobal
	}
	return r.Key.Scope
}

// Supersession is a value of a fact that another replaced, each given by
// its first statement.
type Supersession struct {
	Old, New FactRow
}

// partitions returns which timeline partitions a caller may see under
// scope: the same rule as a search, so a fact never leaks across projects;
// and which groups of memories. Callers hold s.mu.
func (s *Store) partitions(c Caller, scope SearchScope) (func(string) bool, func(index.Group) bool, error) {
	vis, _, err := s.visible(c, scope)
	if err != nil {
		return nil, nil, err
	}
	return func(p string) bool {
		if p == "" {
			return vis(0)
		}
		g, ok := s.groups[p]
		return ok && g != 0 && vis(g)
	}, vis, nil
}

// readFacts records a read of every project when scope asks for one (what
// names it), then runs read under the read lock with the timeline
// partitions c may see.
func (s *Store) readFacts(c Caller, scope SearchScope, what string, read func(part func(string) bool, vis func(index.Group) bool)) error {
	if err := s.recordReadAll(c, scope, what); err != nil {
		return err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	part, vis, err := s.partitions(c, scope)
	if err != nil {
		return err
	}
	read(part, vis)
	return nil
}

// Facts lists the current value, in the view, of every attribute of every
// visible subject containing subject (all when empty). A value is current
// only while the memory that states it is (currency.go): "Redis is gone;
// Valkey runs the cache now" takes Redis out, though no pattern read it.
func (s *Store) Facts(c Caller, subject, asOf, knownAt string, scope SearchScope) ([]FactRow, error) {
	if err := validateCaller(c); err != nil {
		return nil, err
	}
	v, err := recall.ParseMoment(asOf, knownAt)
	if err != nil {
		return nil, err
	}
	var out []FactRow
	err = s.readFacts(c, scope, "facts "+subject, func(part func(string) bool, vis func(index.Group) bool) {
		for _, k := range s.tl.Keys(part, strings.ToLower(strings.TrimSpace(subject))) {
			if e, ok := s.tl.Current(k, v.Timeline()); ok && s.leafCurrent(e.Leaf, vis, v) {
				out = append(out, FactRow{Key: k, Entry: e, Current: true})
			}
		}
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b FactRow) int {
		return cmp.Or(cmp.Compare(a.Key.Subject, b.Key.Subject), cmp.Compare(a.Key.Attribute, b.Key.Attribute), cmp.Compare(a.Key.Scope, b.Key.Scope))
	})
	return out, nil
}

// Timeline lists every value a subject's attribute has had, oldest valid
// time first, in every visible partition.
func (s *Store) Timeline(c Caller, subject, attribute, knownAt string, scope SearchScope) ([]FactRow, error) {
	if err := validateCaller(c); err != nil {
		return nil, err
	}
	subject, attribute = strings.ToLower(strings.TrimSpace(subject)), strings.TrimSpace(attribute)
	if subject == "" || attribute == "" {
		return nil, fmt.Errorf("%w: a timeline needs a subject and an attribute, e.g. user::lives_in", ErrInvalid)
	}
	v, err := recall.ParseMoment("", knownAt)
	if err != nil {
		return nil, err
	}
	var out []FactRow
	err = s.readFacts(c, scope, "timeline "+subject+"::"+attribute, func(part func(string) bool, vis func(index.Group) bool) {
		for _, k := range s.tl.Keys(part, subject) {
			if k.Subject != subject || k.Attribute != attribute {
				continue
			}
			cur, _ := s.tl.Current(k, v.Timeline())
			for _, e := range s.tl.History(k, v.Timeline()) {
				current := e.Leaf == cur.Leaf && e.ValidFrom.Equal(cur.ValidFrom) && s.leafCurrent(e.Leaf, vis, v)
				out = append(out, FactRow{Key: k, Entry: e, Current: current})
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no fact %s::%s in %s: `ihmt facts` lists what there is", ErrNotFound, subject, attribute, scopeName(scope))
	}
	return out, nil
}

// Conflicts lists every supersession among the visible facts.
func (s *Store) Conflicts(c Caller, scope SearchScope) ([]Supersession, error) {
	if err := validateCaller(c); err != nil {
		return nil, err
	}
	var out []Supersession
	err := s.readFacts(c, scope, "conflicts", func(part func(string) bool, vis func(index.Group) bool) {
		for _, x := range s.tl.Conflicts(part) {
			cur, ok := s.tl.Current(x.Key, timeline.View{})
			now := ok && cur.Value == x.New.Value && s.leafCurrent(cur.Leaf, vis, recall.Moment{})
			out = append(out, Supersession{Old: FactRow{Key: x.Key, Entry: x.Old}, New: FactRow{Key: x.Key, Entry: x.New, Current: now}})
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
