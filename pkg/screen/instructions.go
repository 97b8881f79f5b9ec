package screen

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// instructionRule is one shape of text Instructions holds.
type instructionRule struct {
	// label goes into the reason: the pattern's name, never the text.
	label string
	// trigger lists literals every match contains (at the start of a word,
	// if they start with a letter), each within reach of the match's ends.
	// The regexp runs only on the stretch of text around each trigger
	// found, because Go's regexps without a literal prefix step through
	// every byte they are given, and run over the whole of a long text
	// these rules would be the slowest part of its save.
	trigger []string
	// reach is how far on either side of a trigger a match may extend:
	// shortReach is enough for every pattern but the two long ones (a
	// download piped into a shell, sending secrets to a URL).
	reach int
	re    *regexp.Regexp
}

const (
	shortReach = 128
	longReach  = 400
)

// match reports whether the rule matches lower, trying the window around
// each trigger found at the offsets in hits, overlapping windows merged.
func (r instructionRule) match(lower string, hits []int) bool {
	start, end := -1, -1
	for _, k := range hits {
		s := wordEdge(lower, max(0, k-r.reach), -1)
		e := wordEdge(lower, min(len(lower), k+r.reach+32), 1)
		if s <= end {
			end = e // overlaps the current window: grow it
			continue
		}
		if start >= 0 && r.re.MatchString(lower[start:end]) {
			return true
		}
		start, end = s, e
	}
	return start >= 0 && r.re.MatchString(lower[start:end])
}

// wordEdge moves a window edge at i to the nearest white space in direction
// dir (at most 32 bytes), so a window does not start or end mid-word and
// make \b match where the text has none.
func wordEdge(text string, i, dir int) int {
	for n := 0; n < 32 && i > 0 && i < len(text) && text[i] != ' ' && text[i] != '\n' && text[i-1] != ' ' && text[i-1] != '\n'; n++ {
		i += dir
	}
	return i
}

// ruleTrigger is one trigger of instructionRules[rule].
type ruleTrigger struct {
	text string
	rule int
}

// triggersByByte lists the triggers by their first byte, so one pass over
// the text finds them all.
var triggersByByte = func() (t [256][]ruleTrigger) {
	for i, r := range instructionRules {
		for _, tr := range r.trigger {
			t[tr[0]] = append(t[tr[0]], ruleTrigger{tr, i})
		}
	}
	return t
}()

//go:embed instructions.json
var instructionsFile []byte

// instructionRules are the rules of instructions.json, compiled.
var instructionRules = func() []instructionRule {
	var f struct {
		Rules []struct {
			Label    string   `json:"label"`
			Triggers []string `json:"triggers"`
			Reach    string   `json:"reach"`
			Pattern  string   `json:"pattern"`
		} `json:"rules"`
	}
	if err := json.Unmarshal(instructionsFile, &f); err != nil {
		panic(fmt.Sprintf("instructions.json: %v", err)) // embedded and tested: a build error, not a user's
	}
	reaches := map[string]int{"short": shortReach, "long": longReach}
	out := make([]instructionRule, 0, len(f.Rules))
	for _, r := range f.Rules {
		reach, ok := reaches[r.Reach]
		if !ok || len(r.Triggers) == 0 {
			panic(fmt.Sprintf("instructions.json: rule %q: reach %q, %d triggers", r.Label, r.Reach, len(r.Triggers)))
		}
		out = append(out, instructionRule{label: r.Label, trigger: r.Triggers, reach: reach, re: regexp.MustCompile(r.Pattern)})
	}
	return out
}()

// apostrophes folds the curly apostrophes of typed prose into "'".
var apostrophes = strings.NewReplacer("’", "'", "‘", "'", "ʼ", "'")

// Instructions reports whether text reads like instructions aimed at an AI
// agent (a prompt injection) rather than memory about a person or a
// project, and if so why, e.g. `reads like an instruction to agents
// ("ignore previous instructions")`. The reason names the pattern, never the
// text.
//
// Memories are full of imperatives, and most of them are fine: "Always run
// the tests with -race before pushing" is a person's practice, "Don't use
// curl in the Makefile" a project rule, "From now on we deploy on Fridays"
// a team decision. An agent is meant to read and follow such notes. What a
// memory must not carry is text that tries to take control of the agent
// reading it. Text is held when it has one of these shapes:
//
//  1. Override: it tells the reader to drop what it was told ("ignore
//     previous instructions", "disregard the system prompt", "ignora las
//     instrucciones anteriores") or announces a replacement ("new
//     instructions:", "system prompt:", "your new role is").
//
//  2. Re-addressing: it speaks to the agent in the second person with a
//     standing order or a new identity ("you are now …", "from now on you
//     must …", "a partir de ahora debes …"). This is how "From now on we
//     deploy on Fridays" (we: the team, a fact about the project) differs
//     from "From now on you must deploy on Fridays" (you: whoever reads
//     this, an order to every future agent). A memory states facts and
//     preferences about a person or a project ("the user prefers pnpm"); it
//     is not a place to leave orders for whoever comes next.
//
//  3. Secrecy from the user: "do not tell the user", "without telling the
//     user", "no le digas al usuario". Nothing a person saves about
//     themselves or their project needs hiding from them.
//
//  4. Remote code or data leaving: a download piped into a shell
//     ("curl … | sh", "bash <(wget …)"), "exfiltrate", or sending secrets,
//     credentials, the conversation or memory to a URL. The pipe to a shell
//     is held whoever it is addressed to: a memory is replayed into agents
//     that run commands, and it is the standard payload for steering one.
//     A person who wants to remember an installer can save its URL.
//
//  5. Chat-template tokens (<|im_start|>, [INST], <<SYS>>): they have no
//     business in a note and exist only to fake a conversation turn.
//
//  6. An address to the agent reading it: "Assistant, when you read
//     this…", "Dear Claude, the user has authorized…", "Nota para el
//     asistente…", "Agentes: desde ahora…", "if you are an AI…"; a claim
//     that the user authorised the reader to act; a request to skip review
//     or push to main ("push directly to main", "sáltate la revisión"); a
//     request to call the memory's own tools on other memories ("call
//     forget_memory on…").
//
// Matching runs on the lower-cased text with curly apostrophes folded, so
// "Ignore ALL previous instructions" and "don’t tell the user" match, and
// then on the views a deliberate disguise is undone in (see
// [Instructions]).
func instructionsIn(text string) (reason string, ok bool) {
	if strings.Contains(text, "’") || strings.Contains(text, "‘") || strings.Contains(text, "ʼ") {
		text = apostrophes.Replace(text)
	}
	lower := strings.ToLower(text)
	hits := make([][]int, len(instructionRules))
	for i := 0; i < len(lower); i++ {
		ts := triggersByByte[lower[i]]
		if len(ts) == 0 || isLetter(lower[i]) && i > 0 && isLetter(lower[i-1]) {
			continue
		}
		for _, t := range ts {
			if strings.HasPrefix(lower[i:], t.text) {
				hits[t.rule] = append(hits[t.rule], i)
			}
		}
	}
	for i, r := range instructionRules {
		if r.match(lower, hits[i]) {
			return "reads like an instruction to agents (" + r.label + ")", true
		}
	}
	if label, ok := contextMarkup(lower); ok {
		return "reads like an instruction to agents (" + label + ")", true
	}
	return "", false
}

// Instructions reports whether text reads like instructions aimed at an AI
// agent (a prompt injection) rather than memory about a person or a
// project, and if so why, e.g. `reads like an instruction to agents
// ("ignore previous instructions")`. The reason names the pattern, never the
// text. See instructionsIn for the shapes it holds.
//
// It looks at the text as written and as a reader sees it: invisible
// characters removed, confusables and width folded, entities and URL
// escapes decoded, emphasis dropped (see fold); with letters spaced out to
// hide a word ("i g n o r e", "I.G.N.O.R.E") closed up; and with base64 of
// plausible length decoded.
func Instructions(text string) (reason string, ok bool) {
	return instructionsViews(text, 0)
}

func instructionsViews(text string, depth int) (string, bool) {
	if r, ok := instructionsIn(text); ok {
		return r, true
	}
	f := fold(text)
	if f.text != text {
		if r, ok := instructionsIn(f.text); ok {
			return r, true
		}
	}
	if c, changed := closeUp(f.text); changed {
		if r, ok := instructionsIn(c); ok {
			return r, true
		}
	}
	if depth >= maxDecodeDep {
		return "", false
	}
	reason, found := "", false
	base64Runs(f.text, func(_, _ int, decoded string) {
		if !found {
			reason, found = instructionsViews(decoded, depth+1)
		}
	})
	return reason, found
}

// closeUp joins runs of single letters spaced out into words: "i g n o r e
// a l l" becomes "ignore all", and so do "i.g.n.o.r.e", "i\tg\tn…" and
// letters two spaces apart with words three apart. In a run, the gap most
// of its letters are split by is the letters' gap and is dropped; any other
// gap (wider, or of another kind) is a word break and becomes one space. It
// reports whether it changed anything.
func closeUp(t string) (string, bool) {
	var b strings.Builder
	changed := false
	for i := 0; i < len(t); {
		letters, gaps := spacedRun(t, i)
		if len(letters) < 3 {
			b.WriteByte(t[i])
			i++
			continue
		}
		gap := commonGap(gaps)
		for k, at := range letters {
			b.WriteByte(t[at])
			if k < len(gaps) && gaps[k] != gap {
				b.WriteByte(' ')
			}
		}
		changed = true
		i = letters[len(letters)-1] + 1
	}
	return b.String(), changed
}

// spacedRun returns the run of single letters or digits starting at t[i],
// each apart from the next by a short gap of separators (space, tab, line
// break, '.', '-', '_', '*'): the letters' offsets and the gaps between them.
func spacedRun(t string, i int) (letters []int, gaps []string) {
	single := func(k int) bool {
		return k < len(t) && isAlnum(t[k]) && (k == 0 || !isAlnum(t[k-1])) && (k+1 >= len(t) || !isAlnum(t[k+1]))
	}
	if !single(i) {
		return nil, nil
	}
	letters = append(letters, i)
	for k := i + 1; ; {
		j := k
		for j < len(t) && j-k < 4 && strings.IndexByte(" \t\n.-_*", t[j]) >= 0 {
			j++
		}
		if j == k || !single(j) {
			return letters, gaps
		}
		gaps = append(gaps, t[k:j])
		letters = append(letters, j)
		k = j + 1
	}
}

// commonGap is the gap that occurs most often, the shortest on a tie.
func commonGap(gaps []string) string {
	count := map[string]int{}
	best := ""
	for _, g := range gaps {
		count[g]++
		if best == "" || count[g] > count[best] || count[g] == count[best] && len(g) < len(best) {
			best = g
		}
	}
	return best
}
