package lexicon

import (
	"strings"
	"unicode"
)

// A memory that tells of one happening — an incident, a fix, an
// appointment on a given day — is not a version of a state ("production is
// the S3 bucket behind CloudFront") nor of another happening: it says what
// happened then, and stays true. It is known by a day of the calendar
// named in its text (not the date it opens with, which is when it became
// true), or by the words of a mishap and its repair when no change cue says
// a state moved ("upgraded golangci-lint; fixed the findings" changed one).

// monthWords are the month names, English and Spanish, as written.
var monthWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`january february march april may june july august september october november december
		jan feb mar apr jun jul aug sep sept oct nov dec
		enero febrero marzo abril mayo junio julio agosto septiembre setiembre octubre noviembre diciembre`) {
		m[w] = true
	}
	return m
}()

// Event reports whether text tells of a happening rather than states
// something that holds.
func (x *Lexicon) Event(text string) bool {
	if namesDay(text) {
		return true
	}
	found := false
	x.events.each(beforeReason(stems(text)), func(int) { found = true })
	return found && !x.ChangeCue(text)
}

// beforeReason returns words up to the first that gives a reason: a mishap
// told as the reason for a state ("…in VS Code because Neovim's gopls kept
// crashing") does not make the state a happening.
func beforeReason(words []string) []string {
	for i, w := range words {
		if reasonWords[w] {
			return words[:i]
		}
	}
	return words
}

// reasonWords open a reason, as terms.
var reasonWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"because", "porque", "due", "debido"} {
		for _, t := range stems(w) {
			m[t] = true
		}
	}
	return m
}()

// namesDay reports whether text names one day of the calendar after its
// opening: an ISO date ("2025-08-14") or a day's number beside a month's
// name ("11 de diciembre", "March 3", "3rd of May").
func namesDay(text string) bool {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
	})
	for i, w := range words {
		day := i > 0 && isISODate(w)
		if monthWords[w] {
			day = day || i+1 < len(words) && isDayNumber(words[i+1])
			for j := i - 1; !day && j >= 0 && j >= i-2; j-- {
				day = isDayNumber(words[j])
				if words[j] != "de" && words[j] != "of" {
					break
				}
			}
		}
		if day && !bounded(words[max(0, i-4):i]) {
			return true
		}
	}
	return false
}

// boundWords put a day as the end of what a text states ("it expires on
// 2025-03-01", "caduca el 1 de marzo"): a property of the state, not a
// happening.
var boundWords = map[string]bool{"expires": true, "expire": true, "expiry": true, "until": true, "till": true, "valid": true,
	"caduca": true, "caducidad": true, "vence": true, "hasta": true}

func bounded(before []string) bool {
	for _, w := range before {
		if boundWords[w] {
			return true
		}
	}
	return false
}

// isISODate reports whether w is, or opens with, YYYY-MM-DD.
func isISODate(w string) bool {
	if len(w) < 10 || w[4] != '-' || w[7] != '-' {
		return false
	}
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 8, 9} {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return len(w) == 10 || w[10] == '-'
}

// isDayNumber reports whether w is a day of a month: 1 to 31, with an
// English ordinal's ending or none.
func isDayNumber(w string) bool {
	for _, suf := range []string{"st", "nd", "rd", "th"} {
		w = strings.TrimSuffix(w, suf)
	}
	n := 0
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
		n = n*10 + int(r-'0')
	}
	return len(w) > 0 && len(w) <= 2 && n >= 1 && n <= 31
}

// removalWindow is how many words from a removal cue a word it removes
// stands, within one clause ("the Actions workflow was deleted").
const removalWindow = 3

// Removed returns the terms text says are gone: those within a few words
// of a removal cue ("deleted", "uninstalled", "is gone", "desinstalado",
// "last day") in the same clause. A later memory that says the value an
// older one states is gone replaces it, whatever else it shares.
func (x *Lexicon) Removed(text string) map[string]bool {
	out := map[string]bool{}
	for _, clause := range clauses(text) {
		words := stems(clause)
		x.removals.eachAt(words, func(_, at int, cue []string) {
			for i := max(0, at-removalWindow); i < min(len(words), at+len(cue)+removalWindow); i++ {
				if i < at || i >= at+len(cue) {
					out[words[i]] = true
				}
			}
		})
	}
	return out
}

// clauses splits text where one statement ends and another begins.
func clauses(text string) []string {
	return strings.FieldsFunc(strings.ReplaceAll(text, ". ", ";"), func(r rune) bool {
		return r == ';' || r == ':' || r == '(' || r == ')' || r == '\n'
	})
}

// toWords join a change to what it changed to ("replaced Recharts with
// ECharts", "moved to Helix", "cambié Pi-hole por AdGuard").
var toWords = map[string]bool{"with": true, "to": true, "for": true, "by": true, "into": true, "por": true, "a": true, "al": true, "con": true}

// ChangeTo returns what text says something changed from and to: the
// words between its first change cue and the word that joins the cue to
// the new value, and the words after that one, in the clause of the cue.
// "Replaced Recharts with Apache ECharts" changed from recharts to apache
// echarts.
func (x *Lexicon) ChangeTo(text string) (from, to []string) {
	for _, clause := range clauses(text) {
		words := stems(clause)
		at, n := -1, 0
		x.cues.eachAt(words, func(_, i int, cue []string) {
			if at < 0 {
				at, n = i, len(cue)
			}
		})
		if at < 0 {
			continue
		}
		for i := at + n; i < len(words); i++ {
			if toWords[words[i]] {
				return words[at+n : i], words[i+1:]
			}
		}
		if toWords[words[at+n-1]] {
			return nil, words[at+n:] // "switch to", "pasamos a"
		}
	}
	return nil, nil
}
