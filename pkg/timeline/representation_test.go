package timeline

import (
	"reflect"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/facts"
)

// TestDatesComeBackExactly: a leaf's dates are kept as Unix nanoseconds
// when that gives them back exactly and whole otherwise; either way every
// Entry returns the very time.Time that was added (== compares the
// location and the monotonic reading too), and they order as time.Time
// does.
func TestDatesComeBackExactly(t *testing.T) {
	base := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	now := time.Now() // carries a monotonic reading
	tests := []struct {
		name       string
		valid, rec time.Time
	}{
		{"utc", base, base},
		{"utc with nanoseconds", base.Add(123456789), base.Add(987654321)},
		{"another location", base.In(time.FixedZone("CEST", 2*3600)), base},
		{"local", base, base.In(time.Local)},
		{"a location named UTC", base.In(time.FixedZone("UTC", 0)), base},
		{"monotonic", now, now.Add(time.Second)},
		{"monotonic stripped", now.Round(0), now.Round(0)},
		{"zero", time.Time{}, time.Time{}},
		{"before 1678", time.Date(1600, 1, 1, 0, 0, 0, 1, time.UTC), base},
		{"after 2262", base, time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{"the least int64 nanosecond", time.Unix(0, -1<<63).UTC(), base},
		{"the greatest int64 nanosecond", base, time.Unix(0, 1<<63-1).UTC()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := New()
			tl.Add(Source{Leaf: "l", ValidFrom: tt.valid, RecordedAt: tt.rec}, []facts.Fact{{Subject: "s", Attribute: "a", Value: "v"}})
			es := tl.Entries("l")
			if len(es) != 1 || es[0].ValidFrom != tt.valid || es[0].RecordedAt != tt.rec {
				t.Fatalf("Entries = %+v, want dates %v, %v", es, tt.valid, tt.rec)
			}
			h := tl.History(Key{Subject: "s", Attribute: "a"}, View{})
			if len(h) != 1 || h[0].ValidFrom != tt.valid || h[0].RecordedAt != tt.rec {
				t.Fatalf("History = %+v", h)
			}
			// Views a nanosecond either side of each date.
			k := Key{Subject: "s", Attribute: "a"}
			for _, v := range []struct {
				view View
				sees bool
			}{
				{View{AsOf: tt.valid}, true}, // zero is now
				{View{AsOf: tt.valid.Add(-time.Nanosecond)}, false},
				{View{KnownAt: tt.rec}, true},
				{View{KnownAt: tt.rec.Add(-time.Nanosecond)}, false},
			} {
				if _, ok := tl.Current(k, v.view); ok != v.sees {
					t.Errorf("Current in %+v found %v, want %v", v.view, ok, v.sees)
				}
			}
		})
	}
}

// TestOrderAcrossRepresentations: statements order by valid time, then
// record time, then leaf, however their dates are kept: to the
// nanosecond, across locations, and with dates beyond what nanoseconds
// since 1970 hold.
func TestOrderAcrossRepresentations(t *testing.T) {
	base := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	zone := time.FixedZone("X", -5*3600)
	tests := []struct {
		name string
		// Added in this order, with values "0", "1", ...; want is the
		// values in valid-time order.
		srcs []Source
		want []string
	}{
		{"same second, nanoseconds apart", []Source{
			{ValidFrom: base.Add(2), RecordedAt: base},
			{ValidFrom: base.Add(1), RecordedAt: base},
			{ValidFrom: base, RecordedAt: base.Add(5)},
		}, []string{"2", "1", "0"}},
		{"same instant in two locations, record time decides", []Source{
			{ValidFrom: base.In(zone), RecordedAt: base.Add(1)},
			{ValidFrom: base, RecordedAt: base},
		}, []string{"1", "0"}},
		{"same instant and record time in two locations, leaf decides", []Source{
			{Leaf: "b", ValidFrom: base, RecordedAt: base},
			{Leaf: "a", ValidFrom: base.In(zone), RecordedAt: base.In(zone)},
		}, []string{"1", "0"}},
		{"beyond the nanosecond range", []Source{
			{ValidFrom: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), RecordedAt: base},
			{ValidFrom: base, RecordedAt: base},
			{ValidFrom: time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC), RecordedAt: base},
			{ValidFrom: time.Time{}, RecordedAt: base},
		}, []string{"3", "2", "1", "0"}},
	}
	k := Key{Subject: "s", Attribute: "a"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tl := New()
			for i, src := range tt.srcs {
				if src.Leaf == "" {
					src.Leaf = string(rune('p' + i))
				}
				tl.Add(src, []facts.Fact{{Subject: "s", Attribute: "a", Value: string(rune('0' + i))}})
			}
			var got []string
			for _, e := range tl.History(k, View{}) {
				got = append(got, e.Value)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("History values = %v, want %v", got, tt.want)
			}
			// As of the earliest valid time, only what is valid by then.
			first := tt.srcs[0].ValidFrom
			for _, s := range tt.srcs {
				if s.ValidFrom.Before(first) {
					first = s.ValidFrom
				}
			}
			if !first.IsZero() {
				n := 0
				for _, s := range tt.srcs {
					if !s.ValidFrom.After(first) {
						n++
					}
				}
				if h := tl.History(k, View{AsOf: first}); len(h) != n {
					t.Errorf("History as of %v: %d entries, want %d", first, len(h), n)
				}
			}
		})
	}
}

// TestValuesAsStated: an entry's value is the fact's value, trimmed, as
// written, whether it is its own folded form, part of the phrase in
// another case, or nowhere in the phrase; an empty value states nothing.
func TestValuesAsStated(t *testing.T) {
	tests := []struct {
		value, phrase, want string
	}{
		{"vitest", "we test with vitest", "vitest"},
		{"  Vitest ", "we test with Vitest", "Vitest"},
		{"Vitest", "we test with vitest", "Vitest"},
		{"Vitest", "", "Vitest"},
		{"Málaga", "you live in Malaga", "Málaga"},
		{"8080", "the port is 8080, not 80800", "8080"},
	}
	for _, tt := range tests {
		tl := New()
		tl.Add(Source{Leaf: "l", ValidFrom: date("2025-01-01"), RecordedAt: date("2025-01-01")},
			[]facts.Fact{{Subject: "s", Attribute: "a", Value: tt.value, Phrase: tt.phrase}})
		e, ok := tl.Current(Key{Subject: "s", Attribute: "a"}, View{})
		if !ok || e.Value != tt.want || e.Phrase != tt.phrase {
			t.Errorf("value %q, phrase %q: Current = %+v, want value %q", tt.value, tt.phrase, e, tt.want)
		}
	}
	tl := New()
	tl.Add(Source{Leaf: "l"}, []facts.Fact{{Subject: "s", Attribute: "a", Value: " \t"}, {Subject: "s", Attribute: "b"}})
	if tl.Facts() != 0 || tl.Leaves() != 0 || len(tl.Keys(nil, "")) != 0 {
		t.Errorf("empty values were filed: %d facts, keys %v", tl.Facts(), tl.Keys(nil, ""))
	}
}

// TestRemovedPlacesAreReused: a removed leaf's place and a value no
// statement holds any more are reused, and nothing of what held them
// before shows through: not its dates, its statements, its links, nor
// the keys "switched from" its values resolved to.
func TestRemovedPlacesAreReused(t *testing.T) {
	tl := New()
	zone := time.FixedZone("X", 3600)
	// Exotic dates, so that the reused place must forget them.
	tl.Add(Source{Leaf: "jest", ValidFrom: date("2024-01-01").In(zone), RecordedAt: date("2024-01-01").In(zone)},
		[]facts.Fact{{Subject: "frontend", Attribute: "tool", Value: "Jest"}})
	tl.Add(Source{Leaf: "other", ValidFrom: date("2024-02-01"), RecordedAt: date("2024-02-01")},
		[]facts.Fact{{Subject: "backend", Attribute: "tool", Value: "Mocha"}})
	tl.Link("jest", "other", date("2024-02-02"))
	tl.Remove("jest")
	tl.Remove("other")

	tl.Add(Source{Leaf: "mocha", ValidFrom: date("2024-03-01"), RecordedAt: date("2024-03-01")},
		[]facts.Fact{{Subject: "api", Attribute: "tool", Value: "Mocha"}})
	tl.Add(Source{Leaf: "ava", ValidFrom: date("2024-04-01"), RecordedAt: date("2024-04-01")},
		[]facts.Fact{{Subject: "cli", Attribute: "tool", Value: "AVA"}})
	for _, l := range []string{"mocha", "ava"} {
		es := tl.Entries(l)
		if len(es) != 1 || es[0].Leaf != l || es[0].ValidFrom.Location() != time.UTC {
			t.Errorf("Entries(%s) = %+v", l, es)
		}
		if st := tl.Status(l, View{}); st.Outdated {
			t.Errorf("Status(%s) = %+v, want current", l, st)
		}
	}
	if es := tl.Entries("jest"); es != nil {
		t.Errorf("Entries(jest) after Remove = %+v", es)
	}
	// "Jest" is held by no statement now: the switch starts its own
	// timeline instead of landing on whatever reused its place.
	tl.Add(Source{Leaf: "switch", ValidFrom: date("2024-05-01"), RecordedAt: date("2024-05-01")},
		[]facts.Fact{{From: "Jest", Value: "Vitest"}})
	if es := tl.Entries("switch"); len(es) != 1 || es[0].Key != (Key{Subject: "jest", Attribute: "switched_to"}) {
		t.Errorf("switch from a forgotten value filed as %+v", es)
	}
	// "Mocha" is held again, by api only.
	tl.Add(Source{Leaf: "switch2", ValidFrom: date("2024-06-01"), RecordedAt: date("2024-06-01")},
		[]facts.Fact{{From: "mocha", Value: "Vitest"}})
	if es := tl.Entries("switch2"); len(es) != 1 || es[0].Key != (Key{Subject: "api", Attribute: "tool"}) {
		t.Errorf("switch from Mocha filed as %+v", es)
	}
	if st := tl.Status("mocha", View{}); !st.Outdated || !reflect.DeepEqual(st.Successors, []string{"switch2"}) {
		t.Errorf("Status(mocha) = %+v, want outdated by switch2", st)
	}
	// Added again, a removed leaf is as new, with its new dates.
	tl.Add(Source{Leaf: "jest", ValidFrom: date("2024-07-01"), RecordedAt: date("2024-07-01")},
		[]facts.Fact{{Subject: "frontend", Attribute: "tool", Value: "Jest"}})
	if es := tl.Entries("jest"); len(es) != 1 || es[0].ValidFrom != date("2024-07-01") {
		t.Errorf("Entries(jest) added again = %+v", es)
	}
	if st := tl.Status("jest", View{}); st.Outdated {
		t.Errorf("Status(jest) added again = %+v: the old link came back", st)
	}
	if tl.Leaves() != 5 || tl.Facts() != 5 {
		t.Errorf("Leaves %d Facts %d, want 5 and 5", tl.Leaves(), tl.Facts())
	}
}

// TestManyLeavesAcrossBlocks removes and adds leaves across several of
// the blocks leaves are kept in, checking each still answers for itself.
func TestManyLeavesAcrossBlocks(t *testing.T) {
	tl := New()
	n := 3*slotBlock + 7
	id := func(i int) string { return string(rune(0x4e00 + i)) }
	day := date("2020-01-01")
	add := func(i int) {
		d := day.Add(time.Duration(i) * time.Hour)
		tl.Add(Source{Leaf: id(i), ValidFrom: d, RecordedAt: d}, []facts.Fact{{Subject: "s" + id(i%10), Attribute: "a", Value: id(i)}})
	}
	for i := range n {
		add(i)
	}
	for i := 0; i < n; i += 3 {
		tl.Remove(id(i))
	}
	for i := 0; i < n; i += 6 {
		add(i)
	}
	for i := range n {
		es := tl.Entries(id(i))
		if removed := i%3 == 0 && i%6 != 0; removed {
			if es != nil {
				t.Fatalf("Entries(%d) after Remove = %+v", i, es)
			}
			continue
		}
		if len(es) != 1 || es[0].Value != id(i) || es[0].Leaf != id(i) || !es[0].ValidFrom.Equal(day.Add(time.Duration(i)*time.Hour)) {
			t.Fatalf("Entries(%d) = %+v", i, es)
		}
	}
}
