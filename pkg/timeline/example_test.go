package timeline_test

import (
	"fmt"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/facts"
	"github.com/ihmt-dev/ihmt/pkg/timeline"
)

// A move makes the earlier memory outdated, with a notice a reader can act
// on; asked as of an earlier date, or as the memory stood before it learned
// of the move, the answer is still Madrid.
func Example() {
	day := func(s string) time.Time {
		t, err := time.Parse("2006-01-02", s)
		if err != nil {
			panic(err)
		}
		return t
	}
	save := func(tl *timeline.Timeline, leaf, date, text string) {
		src := timeline.Source{Leaf: leaf, ValidFrom: day(date), RecordedAt: day(date)}
		tl.Add(src, facts.Default().Extract(text))
	}
	tl := timeline.New()
	save(tl, "m1", "2024-03-11", "I live in Madrid.")
	save(tl, "v1", "2025-09-02", "I moved to Valencia.")

	st := tl.Status("m1", timeline.View{})
	fmt.Println(st.Outdated, st.Successors)
	fmt.Println(st.Notices[0])

	where := timeline.Key{Subject: "user", Attribute: "lives_in"}
	for _, v := range []timeline.View{{}, {AsOf: day("2024-12-31")}, {KnownAt: day("2025-01-01")}} {
		e, _ := tl.Current(where, v)
		fmt.Println(e.Value)
	}
	// Output:
	// true [v1]
	// OUTDATED: On 2024-03-11 you said you live in Madrid; on 2025-09-02 you said Valencia.
	// Valencia
	// Madrid
	// Madrid
}

// An explicit link (replaces, mark_outdated) outdates a memory whatever
// its words, and retracts its facts: what was current before it is
// current again.
func ExampleTimeline_Link() {
	at := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tl := timeline.New()
	x := facts.Default()
	tl.Add(timeline.Source{Leaf: "ci1", ValidFrom: at, RecordedAt: at}, x.Extract("Our CI runs on Jenkins."))
	tl.Add(timeline.Source{Leaf: "ci2", ValidFrom: at.AddDate(0, 6, 0), RecordedAt: at.AddDate(0, 6, 0)}, x.Extract("Our CI runs on Buildkite."))
	tl.Add(timeline.Source{Leaf: "fix", ValidFrom: at.AddDate(0, 7, 0), RecordedAt: at.AddDate(0, 7, 0)}, x.Extract("Scratch that: builds never left Jenkins."))
	tl.Link("ci2", "fix", at.AddDate(0, 7, 0))

	st := tl.Status("ci2", timeline.View{})
	fmt.Println(st.Outdated, st.Successors, len(st.Notices))
	e, _ := tl.Current(timeline.Key{Subject: "ci", Attribute: "location"}, timeline.View{})
	fmt.Println(e.Value, e.Leaf)
	// Output:
	// true [fix] 0
	// Jenkins ci1
}
