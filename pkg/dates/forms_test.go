package dates

import (
	"testing"
	"time"
)

func TestOpening(t *testing.T) {
	may8 := time.Date(2023, 5, 8, 0, 0, 0, 0, time.UTC)
	at := func(h, m int) time.Time { return may8.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }
	tests := []struct {
		in   string
		want time.Time // zero: no opening date
		rest string    // what follows the date
	}{
		{"2023-05-08 went hiking", may8, " went hiking"},
		{"2023/05/08: notes", may8, ": notes"},
		{"2023-05-08T13:56:00+02:00 deploy", at(11, 56), " deploy"},
		{"2023-05-08 13:56 standup", at(13, 56), " standup"},
		{"08/05/2023 dentist", may8, " dentist"},
		{"8/5/2023", may8, ""},
		{"8.5.2023 x", may8, " x"},
		{"05/28/2023 month first only when day first is impossible", time.Date(2023, 5, 28, 0, 0, 0, 0, time.UTC), " month first only when day first is impossible"},
		{"8 May, 2023 — Caroline", may8, " — Caroline"},
		{"8 May 2023", may8, ""},
		{"8th of May 2023", may8, ""},
		{"8-May-2023", may8, ""},
		{"May 8th 2023 was sunny", may8, " was sunny"},
		{"May 8, 2023", may8, ""},
		{"Sept. 3, 2023", time.Date(2023, 9, 3, 0, 0, 0, 0, time.UTC), ""},
		{"1:56 pm on 8 May, 2023", at(13, 56), ""},
		{"10:37 am on 27 June, 2023", time.Date(2023, 6, 27, 10, 37, 0, 0, time.UTC), ""},
		{"12:05 a.m. on 8 May, 2023", at(0, 5), ""},
		{"13:56, 8 May 2023", at(13, 56), ""},
		{"8 May 2023 at 1:56 pm: lunch", at(13, 56), ": lunch"},
		{"08/05/2023, 13:56 - Ana: hola", at(13, 56), " - Ana: hola"},
		{"8 de mayo de 2023", may8, ""},
		{"8 de mayo del 2023, lunes", may8, ", lunes"},
		{"lunes, 8 de mayo de 2023", may8, ""},
		{"Miércoles 10 de mayo de 2023", time.Date(2023, 5, 10, 0, 0, 0, 0, time.UTC), ""},
		{"mayo 8, 2023", may8, ""},
		{"1º de mayo de 2023", time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC), ""},
		{"## 2023-05-08", may8, ""},
		{"- [2023-05-08 10:00] Bob: hi", at(10, 0), "] Bob: hi"},
		{"**Monday, May 8, 2023**", may8, "**"},
		{"Fecha: 8/5/2023", may8, ""},
		{"\uFEFF2023-05-08", may8, ""},
		// Not dates, or not at the opening.
		{"On 8 May 2023 we moved", time.Time{}, ""},
		{"May 8", time.Time{}, ""},
		{"8/5/23", time.Time{}, ""},
		{"30 February 2023", time.Time{}, ""},
		{"31/04/2023", time.Time{}, ""},
		{"20230508", time.Time{}, ""},
		{"10:00 meeting", time.Time{}, ""},
		{"8 Mayors 2023", time.Time{}, ""},
		{"2023-05-08x", time.Time{}, ""},
		{"1.2.3 release", time.Time{}, ""},
		{"", time.Time{}, ""},
		{"0001-01-01 0:00+00:01", time.Time{}, ""}, // before year 1 in UTC
	}
	for _, tt := range tests {
		got, end, ok := Opening(tt.in)
		if tt.want.IsZero() {
			if ok {
				t.Errorf("Opening(%q) = %v, want none", tt.in, got)
			}
			continue
		}
		if !ok || !got.Equal(tt.want) || got.Location() != time.UTC {
			t.Errorf("Opening(%q) = %v, %v; want %v", tt.in, got, ok, tt.want)
			continue
		}
		if rest := tt.in[end:]; rest != tt.rest {
			t.Errorf("Opening(%q) leaves %q, want %q", tt.in, rest, tt.rest)
		}
	}
}

func TestFind(t *testing.T) {
	tests := []struct {
		in    string
		want  string // RFC 3339, "" for none
		match string
	}{
		{"we met on 8 May, 2023 in Madrid", "2023-05-08T00:00:00Z", "8 May, 2023"},
		{"Visita del 12/03/2024: control", "2024-03-12T00:00:00Z", "12/03/2024"},
		{"last call at 1:56 pm on 8 May, 2023.", "2023-05-08T13:56:00Z", "1:56 pm on 8 May, 2023"},
		{"v2023-05-08x is a tag", "", ""},
		{"A12/05/2023", "", ""},
		{"nothing here", "", ""},
	}
	for _, tt := range tests {
		got, start, end, ok := Find(tt.in)
		if tt.want == "" {
			if ok {
				t.Errorf("Find(%q) = %v at %q, want none", tt.in, got, tt.in[start:end])
			}
			continue
		}
		want, _ := time.Parse(time.RFC3339, tt.want)
		if !ok || !got.Equal(want) || tt.in[start:end] != tt.match {
			t.Errorf("Find(%q) = %v, %q, %v; want %v, %q", tt.in, got, tt.in[start:end], ok, want, tt.match)
		}
	}
}

func FuzzOpeningAndFind(f *testing.F) {
	for _, s := range []string{"1:56 pm on 8 May, 2023", "8 de mayo de 2023", "May 8th 2023", "08/05/2023, 13:56", "2023-05-08T13:56:00+02:00", "lunes, 8", "\xff9:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, end, ok := Opening(s); ok {
			if end <= 0 || end > len(s) || got.Location() != time.UTC || got.Year() < 1 || got.Year() > 9999 {
				t.Fatalf("Opening(%q) = %v, %d", s, got, end)
			}
		}
		if got, start, end, ok := Find(s); ok {
			if start < 0 || start >= end || end > len(s) || got.Location() != time.UTC {
				t.Fatalf("Find(%q) = %v, %d, %d", s, got, start, end)
			}
		}
	})
}

func TestPeriod(t *testing.T) {
	now := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		text       string
		start, end string
		ok         bool
	}{
		{"What caused the outage in June 2024?", "2024-06-01", "2024-06-30", true},
		{"¿Qué pasó en junio de 2024?", "2024-06-01", "2024-06-30", true},
		{"What did we decide in 2023?", "2023-01-01", "2023-12-31", true},
		{"What happened in January?", "2026-01-01", "2026-01-31", true},
		{"What happened in November?", "2025-11-01", "2025-11-30", true}, // not yet this year
		{"What may change?", "", "", false},
		{"Which port is it on?", "", "", false},
	}
	for _, tt := range tests {
		start, end, ok := Period(tt.text, now)
		if ok != tt.ok {
			t.Errorf("Period(%q) ok = %v, want %v", tt.text, ok, tt.ok)
			continue
		}
		if ok && (start.Format(time.DateOnly) != tt.start || end.Format(time.DateOnly) != tt.end) {
			t.Errorf("Period(%q) = %s … %s, want %s … %s", tt.text, start.Format(time.DateOnly), end.Format(time.DateOnly), tt.start, tt.end)
		}
	}
}
