package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// An ablation measures each retrieval signal by switching it alone off:
// every set is run once with every signal on (the reference) and once per
// signal with that one off, each on a store of its own, and the questions
// whose pass changes are counted. A signal whose removal loses questions
// earns its place on those sets; one whose removal gains questions costs
// them. Counts, not rates: a set's few questions are easier to read as
// "−3" than as "−0.017".

// result is all the ablation reads of one question's run.
type result struct {
	QID  string
	Kind string
	Pass bool
}

// results are a run's questions, in the set's order.
func results(outs []outcome) []result {
	out := make([]result, len(outs))
	for i, o := range outs {
		out[i] = result{QID: o.Q.QID, Kind: o.Q.Kind, Pass: judge(o).pass}
	}
	return out
}

// changed is a question that passes on one side only.
type changed struct {
	QID  string `json:"qid"`
	Kind string `json:"kind"`
}

// kindDelta is one kind's questions gained and lost.
type kindDelta struct {
	Kind   string `json:"kind"`
	Gained int    `json:"gained"`
	Lost   int    `json:"lost"`
}

// setDelta is what one set gains and loses with a signal off: passed with
// every signal on, passed with it off, the difference, the questions on
// each side and, per kind that changed, the counts.
type setDelta struct {
	Set     string      `json:"set"`
	PassOn  int         `json:"passed_all_on"`
	PassOff int         `json:"passed_off"`
	Delta   int         `json:"delta"`
	Gained  []changed   `json:"gained"`
	Lost    []changed   `json:"lost"`
	Kinds   []kindDelta `json:"kinds"`
}

// ablationRow is one signal's effect on every set and on them pooled.
type ablationRow struct {
	Signal string     `json:"signal"`
	Why    string     `json:"why"`
	Sets   []setDelta `json:"sets"`
	Pooled setDelta   `json:"pooled"`
}

// compareSet is the difference between the reference run of a set (on)
// and the run with a signal off, question by question. Both must hold the
// same questions in the same order: they are two runs of one set.
func compareSet(name string, on, off []result) (setDelta, error) {
	d := setDelta{Set: name, Gained: []changed{}, Lost: []changed{}, Kinds: []kindDelta{}}
	if len(on) != len(off) {
		return d, fmt.Errorf("%s: %d questions with every signal on, %d with one off", name, len(on), len(off))
	}
	byKind := map[string]*kindDelta{}
	for i := range on {
		if on[i].QID != off[i].QID {
			return d, fmt.Errorf("%s: question %d is %s in one run and %s in the other", name, i+1, on[i].QID, off[i].QID)
		}
		if on[i].Pass {
			d.PassOn++
		}
		if off[i].Pass {
			d.PassOff++
		}
		if on[i].Pass == off[i].Pass {
			continue
		}
		k := byKind[on[i].Kind]
		if k == nil {
			k = &kindDelta{Kind: on[i].Kind}
			byKind[on[i].Kind] = k
		}
		c := changed{QID: on[i].QID, Kind: on[i].Kind}
		if off[i].Pass {
			d.Gained, k.Gained = append(d.Gained, c), k.Gained+1
		} else {
			d.Lost, k.Lost = append(d.Lost, c), k.Lost+1
		}
	}
	d.Delta = d.PassOff - d.PassOn
	d.Kinds = kindsInOrder(byKind)
	return d, nil
}

// kindsInOrder lists the kinds that changed in the table's order.
func kindsInOrder(byKind map[string]*kindDelta) []kindDelta {
	out := []kindDelta{}
	for _, k := range kinds {
		if d := byKind[k]; d != nil {
			out = append(out, *d)
		}
	}
	return out
}

// pool adds the sets' deltas up: the counts and the kinds (the questions
// stay with their sets, whose ids may repeat across sets).
func pool(sets []setDelta) setDelta {
	p := setDelta{Set: "pooled", Gained: []changed{}, Lost: []changed{}}
	byKind := map[string]*kindDelta{}
	for _, s := range sets {
		p.PassOn += s.PassOn
		p.PassOff += s.PassOff
		for _, k := range s.Kinds {
			if byKind[k.Kind] == nil {
				byKind[k.Kind] = &kindDelta{Kind: k.Kind}
			}
			byKind[k.Kind].Gained += k.Gained
			byKind[k.Kind].Lost += k.Lost
		}
	}
	p.Delta = p.PassOff - p.PassOn
	p.Kinds = kindsInOrder(byKind)
	return p
}

// ablate compares, for every signal in sigs, each set's run with that
// signal off (off[signal][set]) against its run with all on (on[set]).
func ablate(names []string, sigs []signal, on [][]result, off map[string][][]result) ([]ablationRow, error) {
	var rows []ablationRow
	for _, s := range sigs {
		runs := off[s.Name]
		if len(runs) != len(names) {
			return nil, fmt.Errorf("signal %s: %d runs for %d sets", s.Name, len(runs), len(names))
		}
		row := ablationRow{Signal: s.Name, Why: s.Why}
		for i, name := range names {
			d, err := compareSet(name, on[i], runs[i])
			if err != nil {
				return nil, fmt.Errorf("signal %s: %w", s.Name, err)
			}
			row.Sets = append(row.Sets, d)
		}
		row.Pooled = pool(row.Sets)
		rows = append(rows, row)
	}
	return rows, nil
}

// printAblation prints one line per signal: each set's net change in
// questions passed with the signal alone off (with the gains and losses
// behind it when both happen), then, for each signal that changed
// anything, which questions of which kinds.
func printAblation(w io.Writer, names []string, on [][]result, rows []ablationRow) {
	fmt.Fprintln(w, "ablation: each signal alone off against every signal on; the change in questions passed (+gained −lost when both)")
	fmt.Fprintln(w)
	// The numbers align right; the first column's names are padded to
	// align left.
	width := len("all on (passed)")
	for _, r := range rows {
		width = max(width, len(r.Signal+" off"))
	}
	left := func(s string) string { return s + strings.Repeat(" ", width-len(s)) }
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\t%s\tpooled\t\n", left("signal"), strings.Join(names, "\t"))
	var passed []string
	sum, n := 0, 0
	for _, r := range on {
		p := 0
		for _, q := range r {
			if q.Pass {
				p++
			}
		}
		passed = append(passed, fmt.Sprintf("%d/%d", p, len(r)))
		sum, n = sum+p, n+len(r)
	}
	fmt.Fprintf(tw, "%s\t%s\t%d/%d\t\n", left("all on (passed)"), strings.Join(passed, "\t"), sum, n)
	for _, r := range rows {
		cells := make([]string, 0, len(r.Sets)+1)
		for _, d := range append(slices.Clone(r.Sets), r.Pooled) {
			cells = append(cells, deltaCell(d))
		}
		fmt.Fprintf(tw, "%s\t%s\t\n", left(r.Signal+" off"), strings.Join(cells, "\t"))
	}
	tw.Flush()
	for _, r := range rows {
		if r.Pooled.PassOn == r.Pooled.PassOff && !slices.ContainsFunc(r.Sets, func(d setDelta) bool { return len(d.Gained)+len(d.Lost) > 0 }) {
			continue
		}
		fmt.Fprintf(w, "\n%s off (%s):\n", r.Signal, r.Why)
		tw2 := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, d := range r.Sets {
			if len(d.Gained)+len(d.Lost) == 0 {
				continue
			}
			var parts []string
			for _, p := range []string{side("lost", d.Lost), side("gained", d.Gained)} {
				if p != "" {
					parts = append(parts, p)
				}
			}
			fmt.Fprintf(tw2, "  %s\t%s\t%s\n", d.Set, signed(d.Delta), strings.Join(parts, "; "))
		}
		tw2.Flush()
	}
}

// deltaCell is a set's net change, with its gains and losses when both
// happened (a 0 that hides +2 −2 is not "no effect").
func deltaCell(d setDelta) string {
	g, l := kindTotals(d)
	if g > 0 && l > 0 {
		return fmt.Sprintf("%s (+%d −%d)", signed(d.Delta), g, l)
	}
	return signed(d.Delta)
}

func kindTotals(d setDelta) (gained, lost int) {
	for _, k := range d.Kinds {
		gained += k.Gained
		lost += k.Lost
	}
	return gained, lost
}

func signed(n int) string {
	switch {
	case n > 0:
		return fmt.Sprintf("+%d", n)
	case n < 0:
		return fmt.Sprintf("−%d", -n)
	}
	return "0"
}

// side lists questions by kind: "lost current q1 q7, paraphrase q9".
func side(label string, qs []changed) string {
	if len(qs) == 0 {
		return ""
	}
	var parts []string
	for _, k := range kinds {
		var ids []string
		for _, q := range qs {
			if q.Kind == k {
				ids = append(ids, q.QID)
			}
		}
		if len(ids) > 0 {
			parts = append(parts, k+" "+strings.Join(ids, " "))
		}
	}
	return label + " " + strings.Join(parts, ", ")
}
