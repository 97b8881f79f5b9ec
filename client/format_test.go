package client

import (
	"testing"
	"time"
)

func TestTimeFormats(t *testing.T) {
	for _, tt := range []struct {
		in           time.Time
		people, json string
	}{
		{time.Date(2024, 3, 11, 0, 0, 0, 0, time.UTC), "2024-03-11", "2024-03-11"},
		{time.Date(2026, 12, 7, 18, 29, 39, 0, time.UTC), "2026-12-07 18:29 UTC", "2026-12-07T18:29:39Z"},
		{time.Date(2026, 12, 7, 19, 29, 39, 0, time.FixedZone("CET", 3600)), "2026-12-07 18:29 UTC", "2026-12-07T18:29:39Z"},
		{time.Date(2024, 3, 11, 0, 0, 0, 1, time.UTC), "2024-03-11 00:00 UTC", "2024-03-11T00:00:00Z"}, // a time, though it rounds to midnight
	} {
		if got := FormatTime(tt.in); got != tt.people {
			t.Errorf("FormatTime(%v) = %q, want %q", tt.in, got, tt.people)
		}
		if got := JSONTime(tt.in); got != tt.json {
			t.Errorf("JSONTime(%v) = %q, want %q", tt.in, got, tt.json)
		}
	}
}

// TestConfidenceExplainsThreshold: the printed confidence falls on the
// same side of the threshold as the real one.
func TestConfidenceExplainsThreshold(t *testing.T) {
	for _, tt := range []struct {
		c, threshold float64
		want         string
	}{
		{0.597, 0.6, "0.597"}, // "0.60" would read as meeting the 0.6 it missed
		{0.5999, 0.6, "0.5999"},
		{0.61, 0.6, "0.61"}, // two digits suffice: no more shown
		{0.6, 0.6, "0.60"},  // exactly at it: meets it, as printed
		{0.4, 0.6, "0.40"},
	} {
		if got := Confidence(tt.c, tt.threshold); got != tt.want {
			t.Errorf("Confidence(%v, %v) = %q, want %q", tt.c, tt.threshold, got, tt.want)
		}
	}
	if got := Threshold(0.6); got != "0.6" {
		t.Errorf("Threshold(0.6) = %q", got)
	}
}

func TestAsWritten(t *testing.T) {
	q := "Which Kubernetes dotfiles, postgres or redis cache since January?"
	w := AsWritten(q, []string{"kubernet", "dotfil", "postgr", "redi", "cach", "januari", "may", "which"})
	for stem, want := range map[string]string{"kubernet": "Kubernetes", "dotfil": "dotfiles", "postgr": "postgres", "redi": "redis", "cach": "cache", "januari": "January"} {
		if w[stem] != want {
			t.Errorf("AsWritten %q = %q, want %q", stem, w[stem], want)
		}
	}
	if _, ok := w["may"]; ok { // a month a date yields, no word of the query: as it is
		t.Errorf("AsWritten made up a word for may: %q", w["may"])
	}
	if _, ok := w["which"]; ok { // written as it is already
		t.Errorf("AsWritten rewrote a word spelled alike: %q", w["which"])
	}
	got := Unstem("No memory in global contains any of: kubernet, postgr, redi.", w)
	if got != "No memory in global contains any of: Kubernetes, postgres, redis." {
		t.Errorf("Unstem = %q", got)
	}
	if got := Unstem("a redirect stays", w); got != "a redirect stays" { // whole words only
		t.Errorf("Unstem rewrote part of a word: %q", got)
	}
}
