package store

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/dates"
	"github.com/ihmt-dev/ihmt/pkg/facts"
	"github.com/ihmt-dev/ihmt/pkg/index"
	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/lexicon"
	"github.com/ihmt-dev/ihmt/pkg/recall"
	"github.com/ihmt-dev/ihmt/pkg/succession"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// Probable supersession: most corrections are not worded so that a fact
// pattern reads both values as one fact ("Upgraded golangci-lint to
// v1.60.3", "we dropped Jest for Vitest", "finally unpacked in the new
// flat in Valencia"). So when a memory is saved, the older memories of its
// partition that say the same thing about the same subject are found —
// by the rare words they share, weighted by rarity, or by a concept of
// pkg/lexicon they are both about — and the later-dated of each pair
// becomes the probable successor of the other. A change cue ("now", "no
// longer", "ya no") lowers the evidence needed; the dates, not the order
// of saving, decide the direction, so a memory saved late about an old
// value becomes history.
//
// The inference is stored in the new memory's header (leaf.Probable), so
// it is in the log and the leaf like every other link, rebuilt from the
// leaves as it was made (never re-inferred with a newer lexicon), and a
// person can undo it (Unlink). At query time a probable link takes effect
// only for a question that touches what the two memories share (their
// common concepts or rare words): a question about something else one of
// them says is not about what changed.
const (
	// successionTerms is how many of a new memory's rarest terms look for
	// its older versions, successionCandidates how many memories are
	// weighed, and maxProbable how many links one save makes.
	successionTerms      = 24
	successionCandidates = 4
	maxProbable          = 3
	// countedFreq: a term in at most this many memories of the store has
	// its memories in the partition counted (partitionFreq); searchedFreq:
	// one in at most this many looks for older versions.
	countedFreq  = 256
	searchedFreq = 1024
	// rareShare: a term is rare when its IDF in the partition is at least
	// this share of the highest IDF it can give (a term found nowhere).
	rareShare = 0.6
	fewDF     = 3
)

// inferSuccession adds to l, a memory about to be saved, the probable
// supersessions between it and the older memories of its partition. It
// runs in the caller's goroutine, before the writer: an inference against
// a save of the same moment may be missed, never a wrong one made.
func (s *Store) inferSuccession(l *leaf.Leaf, valid time.Time, fs []facts.Fact) {
	if l.Source != nil {
		return // a document's blocks are not statements that change
	}
	if s.lex.Event(l.Text) {
		return // a happening is no version of a state (lexicon.Event)
	}
	in := inference{l: l, valid: valid, concepts: s.lex.Concepts(l.Text), cue: s.lex.ChangeCue(l.Text), lang: lexicon.Language(l.Text), versions: lexicon.Versions(l.Text), addresses: s.lex.Addresses(l.Text), removed: s.lex.Removed(l.Text)}
	terms := ownTerms(l)

	s.mu.RLock()
	defer s.mu.RUnlock()
	g, ok := s.groups[l.Project]
	if l.Scope == leaf.ScopeGlobal {
		g, ok = 0, true
	}
	if !ok {
		return // the first memory of its project
	}
	in.keys = s.tl.KeysOf(timeline.Source{Leaf: l.ID, Scope: partition(l), ValidFrom: valid}, fs)
	in.top = s.rarest(terms, successionTerms)
	look := in.translate(s.lex)
	// The older versions are looked for by the words that can tell them
	// apart: a word in many memories of the store is rare in no partition
	// worth the name, and walking its postings would make a save cost more
	// the larger the store.
	look = slices.DeleteFunc(look, func(t string) bool { return s.ix.DocFreq(t) > searchedFreq })
	look = look[:min(len(look), index.MaxQueryTerms)]
	if len(look) == 0 {
		return
	}
	hits, _ := s.ix.Search(index.Query{Terms: look, Visible: func(x index.Group) bool { return x == g }, Limit: successionCandidates})
	var total float64
	in.idf, total, in.rare = s.partitionIDF(in.top, g)
	in.total, in.perTerm = total, total/float64(len(in.top))
	in.sameIDF = make([][]float64, len(in.same))
	for i, ts := range in.same {
		in.sameIDF[i], _, _ = s.partitionIDF(ts, g)
	}
	var found []leaf.Probable
	for _, h := range hits {
		if p, ok := s.weighSuccession(&in, h.Doc); ok {
			found = append(found, p)
		}
	}
	slices.SortStableFunc(found, func(a, b leaf.Probable) int { return cmp.Compare(b.Confidence, a.Confidence) })
	l.Probable = found[:min(len(found), maxProbable)]
}

// inference is what inferSuccession knows of the new memory.
type inference struct {
	l        *leaf.Leaf
	valid    time.Time
	keys     []timeline.Key // the timeline's keys its read facts fall on
	concepts lexicon.Set
	versions map[string]string // lexicon.Versions of its text
	// addresses are the IPv4 addresses it gives names (lexicon.Addresses).
	addresses map[string]string
	removed   map[string]bool // lexicon.Removed of its text
	cue       bool
	lang      string
	// top are its rarest terms, same[i] top[i] in the other language (the
	// glossary), idf and sameIDF their IDF in the partition, rare the IDF
	// at which a term is rare there, total the top's sum and perTerm its
	// average.
	top            []string
	same           [][]string
	idf            []float64
	sameIDF        [][]float64
	rare           float64
	total, perTerm float64
}

// translate fills in.same and returns the terms to look for older
// versions by: the rarest terms and their translations, which find a
// correction in Spanish of a memory in English, and the other way.
func (in *inference) translate(lex *lexicon.Lexicon) []string {
	in.same = make([][]string, len(in.top))
	look := slices.Clone(in.top)
	for _, x := range lex.Glossary(in.l.Text, in.top) {
		in.same[x.For] = append(in.same[x.For], x.Term)
		look = append(look, x.Term)
	}
	return look
}

// weighSuccession weighs the evidence that the new memory and the older
// memory d are two versions of one statement. Callers hold s.mu.
func (s *Store) weighSuccession(in *inference, d index.Doc) (leaf.Probable, bool) {
	m := s.docs[d]
	if !m.Live() || m.Source != nil || m.Scope != in.l.Scope || dates.SameDay(m.ValidFrom, in.valid) {
		return leaf.Probable{}, false
	}
	if s.tl.States(m.ID, in.keys) {
		return leaf.Probable{}, false // the facts' timeline orders the two already
	}
	e := succession.Evidence{Cue: in.cue}
	holds := func(t string) bool { return s.ix.Contains(d, t) }
	weight, shared := in.overlap(holds, true)
	e.Rare = len(shared)
	common := s.lex.ConceptsWith(in.concepts, holds)
	if e.Rare == 0 && common == 0 {
		return leaf.Probable{}, false // nothing distinctive in common: not worth reading
	}
	oldText := s.shown(m).Text
	oldVersions := lexicon.Versions(oldText)
	readdressed := succession.VersionMoved(in.addresses, s.lex.Addresses(oldText))
	moved := readdressed || succession.VersionMoved(in.versions, oldVersions)
	// What happened then stays true; but a happening that gives a name a
	// version ("after the Fedora 42 upgrade broke it") states that version
	// too, and a later one moves it.
	if !moved && s.lex.Event(oldText) {
		return leaf.Probable{}, false
	}
	if a, b := succession.FullName(in.l.Text), succession.FullName(oldText); a != "" && b != "" && a != b {
		return leaf.Probable{}, false // about two people ("Sam Whitlock lives in…", "Alex Moreau lives in…")
	}
	if a, b := succession.SubjectName(in.l.Text), succession.SubjectName(oldText); a != "" && b != "" && a != b && (succession.Personal(in.l.Text) || succession.Personal(oldText)) {
		return leaf.Probable{}, false // two people's news ("Lucía has moved to Helix", "Carmen se ha mudado")
	}
	if lexicon.Language(oldText) == in.lang {
		// Two texts in one language share their words, not translations.
		weight, shared = in.overlap(holds, false)
		e.Rare = len(shared)
	}
	// The overlap coefficient, weighted by rarity: the shorter of two
	// versions is mostly contained in the longer, whatever the longer
	// adds ("…because 9090 collided with Prometheus").
	old := ownTerms(&leaf.Leaf{Header: m.Header, Text: oldText})
	common |= s.lex.Shown(in.concepts, oldText)
	if readdressed {
		// One name at two addresses: the two are about where it is,
		// whatever words they use for it ("the NAS, faro, is at…").
		common |= s.lex.AddressConcepts()
	}
	e.Value = s.lex.BothHold(common, in.l.Text, oldText)
	if !in.cue && !m.ValidFrom.After(in.valid) && s.restates(in, oldText, shared) {
		return leaf.Probable{}, false // it says what the older one changed to
	}
	if s.lex.ValuesAgree(common, in.l.Text, oldText) {
		return leaf.Probable{}, false // one value, stated twice
	}
	e.Versioned = moved
	e.Similarity = weight / min(in.total, in.perTerm*float64(max(1, len(old))))
	e.Concept = common != 0
	// Gone, a word two memories share only by chance ("config" of two file
	// names) says nothing: it must be what a concept of both is about.
	e.Removed = e.Concept && slices.ContainsFunc(shared, func(t string) bool { return in.removed[t] })
	conf := succession.Confidence(e)
	if conf == 0 {
		return leaf.Probable{}, false
	}
	return leaf.Probable{ID: m.ID, Newer: m.ValidFrom.After(in.valid), Confidence: conf, Concepts: s.lex.Names(common), Terms: shared}, true
}

// restates reports whether the new memory, saying nothing changed, names
// what the older one changed to and not what it changed from: "the
// heatmap renders 200k cells with ECharts" after "replaced Recharts with
// ECharts" is the same state, not a new one. Only a change from something
// counts ("replaced Recharts with…", not "deploys go to Vercel").
func (s *Store) restates(in *inference, oldText string, shared []string) bool {
	from, to := s.lex.ChangeTo(oldText)
	from = slices.DeleteFunc(slices.Clone(from), tokenize.IsStopWord)
	if len(from) == 0 || !slices.ContainsFunc(shared, func(t string) bool { return slices.Contains(to, t) }) {
		return false
	}
	return !slices.ContainsFunc(from, func(t string) bool { return slices.Contains(in.top, t) })
}

// overlap returns the IDF-weighted share of the new memory's rarest terms
// an older one holds, and those of them that are rare; translated counts
// a term's translations as the term.
func (in *inference) overlap(holds func(string) bool, translated bool) (weight float64, rare []string) {
	for i, t := range in.top {
		idf, ok := in.idf[i], holds(t)
		if !ok && translated {
			// As rare as the translation the older memory holds: a
			// weekday is rare in the few Spanish memories, not in all.
			if j := slices.IndexFunc(in.same[i], holds); j >= 0 {
				idf, ok = min(idf, in.sameIDF[i][j]), true
			}
		}
		if !ok {
			continue
		}
		weight += idf
		if idf >= in.rare {
			rare = append(rare, t)
		}
	}
	return weight, rare
}

// ownTerms are the terms of l's text that can tell its versions apart:
// not its project's name, which every memory of the project shares, nor a
// single character.
func ownTerms(l *leaf.Leaf) []string {
	name := map[string]bool{}
	for _, t := range tokenize.Terms(l.Project) {
		name[t] = true
	}
	var out []string
	for _, t := range tokenize.Terms(l.Text) {
		if !name[t] && len([]rune(t)) > 1 {
			out = append(out, t)
		}
	}
	return out
}

// partitionIDF returns the IDF of each of terms within partition g, their
// sum, and the IDF at or above which a term is rare there. Rarity is
// measured in the partition: a word every memory of the project holds
// ("staging", "prod") tells its versions apart no better than the
// project's name. A rare term's IDF is a good share of the highest the
// partition can give (a term found nowhere), or, in a small partition
// where no IDF is high, it is in a few memories only. Callers hold s.mu.
func (s *Store) partitionIDF(terms []string, g index.Group) (idf []float64, total, rare float64) {
	n := float64(s.ix.GroupLen(g))
	idf = make([]float64, len(terms))
	for i, t := range terms {
		df := s.partitionFreq(t, g, n)
		idf[i] = math.Log(1 + (n-df+0.5)/(df+0.5))
		total += idf[i]
	}
	rare = min(rareShare*math.Log(1+(n+0.5)/0.5), math.Log(1+(n-fewDF+0.5)/(fewDF+0.5)))
	return idf, total, rare
}

// partitionFreq is how many of the n memories of partition g hold term t:
// counted along its posting list when the list is short; for a term
// common in the store, estimated as if spread evenly — it is not rare in
// the partition either way, and walking its list would make a save's cost
// grow with the store. Callers hold s.mu.
func (s *Store) partitionFreq(t string, g index.Group, n float64) float64 {
	df := s.ix.DocFreq(t)
	if df <= countedFreq {
		return float64(s.ix.GroupFreq(t, g, df))
	}
	total := float64(max(1, s.ix.Len()))
	return max(float64(countedFreq), float64(df)*n/total)
}

// rarest returns up to n of terms, the rarest first. Callers hold s.mu.
func (s *Store) rarest(terms []string, n int) []string {
	type weighed struct {
		term string
		idf  float64
	}
	ws := make([]weighed, len(terms))
	for i, t := range terms {
		ws[i] = weighed{t, s.ix.IDF(t)}
	}
	slices.SortStableFunc(ws, func(a, b weighed) int { return cmp.Compare(b.idf, a.idf) })
	out := make([]string, min(len(ws), n, index.MaxQueryTerms))
	for i := range out {
		out[i] = ws[i].term
	}
	return out
}

// addProbable puts a live leaf's probable supersessions in s.likely.
// Callers hold s.mu.
func (s *Store) addProbable(l *leaf.Leaf) {
	self, ok := s.byID[l.ID]
	if !ok {
		return
	}
	for _, p := range l.Probable {
		from, to, ok := s.endsOf(self, p)
		if !ok || !s.docs[from].Live() || !s.docs[to].Live() || partition(s.docs[from]) != partition(s.docs[to]) {
			continue
		}
		if slices.ContainsFunc(s.likely[from], func(e recall.Edge) bool { return e.To == to }) {
			continue
		}
		s.likely[from] = append(s.likely[from], recall.Edge{To: to, Conf: p.Confidence, Concepts: s.lex.Named(p.Concepts), Terms: p.Terms})
	}
}

// probableNotice words the notice of a memory probably superseded by l.
func (s *Store) probableNotice(l *leaf.Leaf) string {
	full := s.shown(l)
	return "PROBABLY OUTDATED: a later memory (" + l.ValidFrom.Format(time.DateOnly) + ", " + l.ID + ") says: " + excerpt(full.Text)
}

// ProbableLink is one probable supersession, as a person reviews it.
type ProbableLink struct {
	// Old is the memory probably superseded, New its probable successor
	// (the later-dated), each with its text.
	Old, New   leaf.Leaf
	Confidence float64
	// About is what the inference rests on: the concepts and rare words
	// the two share.
	About []string
}

// Probables lists the probable supersessions between live memories the
// caller may see under scope, most recent successor first.
func (s *Store) Probables(c Caller, scope SearchScope) ([]ProbableLink, error) {
	if err := validateCaller(c); err != nil {
		return nil, err
	}
	if err := s.recordReadAll(c, scope, "probable supersessions"); err != nil {
		return nil, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	vis, _, err := s.visible(c, scope)
	if err != nil {
		return nil, err
	}
	return s.probablesWhere(vis, func(*leaf.Leaf, *leaf.Leaf) bool { return true }), nil
}

// probablesWhere lists the probable supersessions between live memories in
// groups vis allows that keep accepts (old, new), most recent successor
// first. Callers hold s.mu for reading.
func (s *Store) probablesWhere(vis func(index.Group) bool, keep func(old, new *leaf.Leaf) bool) []ProbableLink {
	var out []ProbableLink
	for _, holder := range s.docs {
		if !holder.Live() || !vis(s.groupOf(holder)) {
			continue
		}
		for _, p := range holder.Probable {
			d, ok := s.byID[p.ID]
			if !ok || !s.docs[d].Live() {
				continue
			}
			old, nw := s.docs[d], holder
			if p.Newer {
				old, nw = nw, old
			}
			if keep(old, nw) {
				out = append(out, ProbableLink{Old: s.shown(old), New: s.shown(nw), Confidence: p.Confidence, About: append(slices.Clone(p.Concepts), p.Terms...)})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b ProbableLink) int {
		return cmp.Or(b.New.ValidFrom.Compare(a.New.ValidFrom), strings.Compare(a.New.ID, b.New.ID), strings.Compare(a.Old.ID, b.Old.ID))
	})
	return out
}

// Unlink undoes a probable supersession a person judged wrong: the
// inference is removed from the header of the memory that holds it, so
// the older memory is current again, and the change is in the log. An
// explicit correction (mark_outdated) is not undone here: it is a
// person's or an agent's statement, not a guess.
func (s *Store) Unlink(ctx context.Context, c Caller, oldID, newID string) (leaf.Leaf, error) {
	if err := validateCaller(c); err != nil {
		return leaf.Leaf{}, err
	}
	if !c.IsPerson() {
		return leaf.Leaf{}, fmt.Errorf("%w: only the person can undo a probable supersession: ask them to run `ihmt unlink %s %s`", ErrPermission, oldID, newID)
	}
	return doOp(ctx, s, func(now time.Time) (*changeOf[leaf.Leaf], error) {
		holder, other, err := s.probableHolder(c, oldID, newID)
		if err != nil {
			return nil, err
		}
		holder.Probable = slices.DeleteFunc(slices.Clone(holder.Probable), func(p leaf.Probable) bool { return p.ID == other })
		e := s.newEntry(opUnlink, c, now)
		e.ID, e.Leaves, e.Detail = holder.ID, []leaf.Header{holder.Header}, oldID+" is not superseded by "+newID
		return &changeOf[leaf.Leaf]{entries: []entry{e}, leaves: []*leaf.Leaf{holder}, done: func(*journal.Journal) (leaf.Leaf, error) { return *holder, nil }}, nil
	})
}

// probableHolder finds the memory whose header holds the probable link
// between oldID and newID (either may, by the dates), as a copy to change,
// and the id of the other one. Only the writer calls it.
func (s *Store) probableHolder(c Caller, oldID, newID string) (*leaf.Leaf, string, error) {
	for _, pair := range [][2]string{{newID, oldID}, {oldID, newID}} {
		l, err := s.lookup(c, pair[0], ScopeDefault)
		if err != nil {
			return nil, "", err
		}
		for _, p := range l.Probable {
			if p.ID == pair[1] && p.Newer == (pair[0] == oldID) {
				return l, pair[1], nil
			}
		}
	}
	return nil, "", fmt.Errorf("%w: no probable supersession of %s by %s: `ihmt conflicts` lists them", ErrNotFound, oldID, newID)
}

// endsOf returns the superseded memory and the successor of a probable
// supersession held by memory self. Callers hold s.mu.
func (s *Store) endsOf(self index.Doc, p leaf.Probable) (from, to index.Doc, ok bool) {
	d, ok := s.byID[p.ID]
	if !ok {
		return 0, 0, false
	}
	if p.Newer {
		return self, d, true
	}
	return d, self, true
}

// dropProbable takes the probable supersessions l's header holds out of
// s.likely, before a new version of l is published. Callers hold s.mu.
func (s *Store) dropProbable(l *leaf.Leaf) {
	self, ok := s.byID[l.ID]
	if !ok {
		return
	}
	for _, p := range l.Probable {
		from, to, ok := s.endsOf(self, p)
		if !ok {
			continue
		}
		s.likely[from] = slices.DeleteFunc(s.likely[from], func(e recall.Edge) bool { return e.To == to })
		if len(s.likely[from]) == 0 {
			delete(s.likely, from)
		}
	}
}
