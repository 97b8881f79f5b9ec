package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// outcome is one question's answer, in the set's ids.
type outcome struct {
	Q      question
	Status string
	Ranked []string // set ids, best first ("?" for a memory the set does not hold)
	Err    string
}

// judged is how an outcome scores (see the set README's Scoring section).
type judged struct {
	pass, top1, top5, wrongAbove bool
	hasExpect                    bool
}

// judge scores one outcome. pass is the kind's own rule; top-1 and top-5
// say whether an expected memory is first or among the first five; wrong
// above, whether a forbidden memory ranks above every expected one (a
// forbidden memory ranked with no expected one at all counts).
func judge(o outcome) judged {
	q := o.Q
	j := judged{hasExpect: len(q.Expect) > 0}
	first := -1
	for i, id := range o.Ranked {
		if slices.Contains(q.Expect, id) {
			first = i
			break
		}
	}
	j.top1 = first == 0
	j.top5 = first >= 0 && first < 5
	for i, id := range o.Ranked {
		if slices.Contains(q.Forbid, id) && (first < 0 || i < first) {
			j.wrongAbove = true
			break
		}
	}
	switch q.Kind {
	case "current", "historical", "lookup", "paraphrase":
		j.pass = o.Status == "found" && j.top1
	case "ambiguous":
		covered := 0
		for _, g := range q.Groups {
			if slices.ContainsFunc(o.Ranked, func(id string) bool { return slices.Contains(g, id) }) {
				covered++
			}
		}
		j.pass = o.Status == "ambiguous" && covered >= 2
	case "negative":
		j.pass = o.Status == "not_found"
	case "scope":
		j.pass = !slices.ContainsFunc(o.Ranked, func(id string) bool { return slices.Contains(q.Forbid, id) })
	}
	if o.Err != "" {
		j = judged{hasExpect: j.hasExpect}
	}
	return j
}

// kindRow is one line of the table. Top1 and Top5 are over the questions
// that expect a memory (ExpectN of them); they are absent when none does.
type kindRow struct {
	Kind       string         `json:"kind"`
	N          int            `json:"n"`
	Pass       float64        `json:"pass"`
	Passed     int            `json:"passed"`
	ExpectN    int            `json:"with_expect"`
	Top1       *float64       `json:"top1,omitempty"`
	Top5       *float64       `json:"top5,omitempty"`
	WrongAbove int            `json:"wrong_above"`
	Errors     int            `json:"errors,omitempty"`
	Statuses   map[string]int `json:"statuses"`
}

// miss is a question that did not pass, for -v and --json.
type miss struct {
	QID    string       `json:"qid"`
	Kind   string       `json:"kind"`
	Query  string       `json:"query"`
	AsOf   string       `json:"as_of,omitempty"`
	Status string       `json:"status"`
	Ranked []rankedItem `json:"ranked"`
	Expect []string     `json:"expect"`
	Forbid []string     `json:"forbid"`
	Error  string       `json:"error,omitempty"`
}

type rankedItem struct {
	ID      string `json:"id"`
	Excerpt string `json:"excerpt"`
}

// report is one set's figures (or the pooled figures of several).
type report struct {
	Set        string    `json:"set"`
	Name       string    `json:"name"`
	SignalsOff []string  `json:"signals_off,omitempty"`
	Memories   int       `json:"memories"`
	Questions  int       `json:"questions"`
	Saved      int       `json:"saved"`
	Reused     bool      `json:"reused_store"`
	Kinds      []kindRow `json:"kinds"`
	Total      kindRow   `json:"total"`
	SaveSec    float64   `json:"save_seconds"`
	AskSec     float64   `json:"ask_seconds"`
	TotalSec   float64   `json:"total_seconds"`
	Misses     []miss    `json:"misses,omitempty"`
}

func tallyRows(set *evalSet, outs []outcome, withMisses bool) ([]kindRow, kindRow, []miss) {
	rows := map[string]*kindRow{}
	total := &kindRow{Kind: "all", Statuses: map[string]int{}}
	type hits struct{ t1, t5 int }
	h := map[string]*hits{"all": {}}
	var misses []miss
	for _, o := range outs {
		r := rows[o.Q.Kind]
		if r == nil {
			r = &kindRow{Kind: o.Q.Kind, Statuses: map[string]int{}}
			rows[o.Q.Kind], h[o.Q.Kind] = r, &hits{}
		}
		j := judge(o)
		for _, x := range []*kindRow{r, total} {
			x.N++
			x.Statuses[o.Status]++
			if o.Err != "" {
				x.Errors++
			}
			if j.pass {
				x.Passed++
			}
			if j.wrongAbove {
				x.WrongAbove++
			}
			if j.hasExpect {
				x.ExpectN++
			}
		}
		for _, k := range []string{o.Q.Kind, "all"} {
			if j.top1 {
				h[k].t1++
			}
			if j.top5 {
				h[k].t5++
			}
		}
		if !j.pass && withMisses {
			misses = append(misses, missOf(set, o))
		}
	}
	finish := func(r *kindRow) {
		r.Pass = ratio(r.Passed, r.N)
		if r.ExpectN > 0 {
			t1, t5 := ratio(h[r.Kind].t1, r.ExpectN), ratio(h[r.Kind].t5, r.ExpectN)
			r.Top1, r.Top5 = &t1, &t5
		}
	}
	var out []kindRow
	for _, k := range kinds {
		if r := rows[k]; r != nil {
			finish(r)
			out = append(out, *r)
		}
	}
	finish(total)
	return out, *total, misses
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func missOf(set *evalSet, o outcome) miss {
	m := miss{QID: o.Q.QID, Kind: o.Q.Kind, Query: o.Q.Query, AsOf: o.Q.AsOf, Status: o.Status, Expect: o.Q.Expect, Forbid: o.Q.Forbid, Error: o.Err}
	for _, id := range o.Ranked {
		m.Ranked = append(m.Ranked, rankedItem{ID: id, Excerpt: excerpt(set.byID[id].Text, 70)})
	}
	return m
}

// excerpt is the first n runes of s on one line.
func excerpt(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

func (r report) print(w io.Writer, verbose bool) {
	state := fmt.Sprintf("%d saved", r.Saved)
	if r.Reused {
		state = "store reused (-keep)"
	}
	fmt.Fprintf(w, "%s (%s): %d memories (%s), %d questions through ihmt-mcp%s\n\n", r.Name, r.Set, r.Memories, state, r.Questions, offNote(r.SignalsOff))
	printTable(w, r.Kinds, r.Total)
	if r.Total.Errors > 0 {
		fmt.Fprintf(w, "\n%d questions failed with an error (counted as misses; -v shows them)\n", r.Total.Errors)
	}
	fmt.Fprintf(w, "\nsave %.1fs, ask %.1fs, total %.1fs\n", r.SaveSec, r.AskSec, r.TotalSec)
	if verbose {
		printMisses(w, r.Misses)
	}
}

// offNote says which signals a run had off, if any.
func offNote(off []string) string {
	if len(off) == 0 {
		return ""
	}
	return ", with " + strings.Join(off, ", ") + " off"
}

// printTable is the per-kind table, then the total's row.
func printTable(w io.Writer, rows []kindRow, total kindRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "kind\tn\tpass\ttop-1\ttop-5\twrong-above\tstatuses\t")
	for _, row := range append(slices.Clone(rows), total) {
		fmt.Fprintf(tw, "%s\t%d\t%.2f\t%s\t%s\t%d\t%s\t\n", row.Kind, row.N, row.Pass, opt(row.Top1), opt(row.Top5), row.WrongAbove, statuses(row.Statuses))
	}
	tw.Flush()
}

func printMisses(w io.Writer, misses []miss) {
	fmt.Fprintf(w, "\n%d misses:\n", len(misses))
	for _, m := range misses {
		asOf := ""
		if m.AsOf != "" {
			asOf = " as_of " + m.AsOf
		}
		fmt.Fprintf(w, "\n%s %s%s: %q → %s\n", m.QID, m.Kind, asOf, m.Query, m.Status)
		if m.Error != "" {
			fmt.Fprintf(w, "  error: %s\n", m.Error)
		}
		for i, it := range m.Ranked {
			fmt.Fprintf(w, "  %d. %s %s %s\n", i+1, it.ID, mark(it.ID, m), it.Excerpt)
		}
		fmt.Fprintf(w, "  expect %v  forbid %v\n", m.Expect, m.Forbid)
	}
}

// mark flags a ranked id: + expected, ✗ forbidden.
func mark(id string, m miss) string {
	switch {
	case slices.Contains(m.Expect, id):
		return "+"
	case slices.Contains(m.Forbid, id):
		return "✗"
	}
	return " "
}

func opt(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f", *v)
}

func statuses(m map[string]int) string {
	var parts []string
	for _, s := range []string{"found", "ambiguous", "not_found", "error"} {
		if m[s] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", s, m[s]))
		}
	}
	return strings.Join(parts, ", ")
}
