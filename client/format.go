package client

import (
	"strconv"
	"time"

	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// FormatTime renders a time for people, in one format everywhere a person
// reads one (the CLI's text, and the page, whose app.js when() follows the
// same rule): the date alone when the time is midnight UTC — how a date
// without a time is stored, so the time is unknown — else the date and the
// minute in UTC, "2026-12-07 18:29 UTC". JSON carries JSONTime instead.
func FormatTime(t time.Time) string {
	t = t.UTC()
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format(time.DateOnly)
	}
	return t.Format("2006-01-02 15:04 UTC")
}

// JSONTime renders a time for JSON a script or a model reads: RFC 3339 in
// UTC, as a full date alone when the time is midnight (the shim's valid_from
// is "2024-03-11" for a memory dated by day, as its contract says).
func JSONTime(t time.Time) string {
	t = t.UTC()
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format(time.DateOnly)
	}
	return t.Format(time.RFC3339)
}

// Where says where a memory belongs: "global" or "project <key>".
func Where(m *ihmtv1.Memory) string {
	if m.GetScope() == ihmtv1.Scope_SCOPE_PROJECT {
		return "project " + m.GetProject()
	}
	return "global"
}

// Confidence renders a confidence for people: two decimals, or as many
// more (up to six) as it takes for the printed value to fall on the same
// side of each threshold as the real one. "0.597, under the 0.6" explains a
// decision; "0.60, under the 0.60" does not.
func Confidence(c float64, thresholds ...float64) string {
	for digits := 2; ; digits++ {
		s := strconv.FormatFloat(c, 'f', digits, 64)
		if digits == 6 {
			return s
		}
		shown, _ := strconv.ParseFloat(s, 64)
		same := true
		for _, t := range thresholds {
			if (shown >= t) != (c >= t) {
				same = false
			}
		}
		if same {
			return s
		}
	}
}

// Threshold renders a threshold as short as it is: 0.6, not 0.60.
func Threshold(t float64) string { return strconv.FormatFloat(t, 'f', -1, 64) }

// Where a saved memory's valid time came from: the date the call gave,
// the one its text opens with, or neither — then the moment of the save.
const (
	DateGiven = "given"
	DateText  = "text"
	DateSave  = "save"
)

// DateSource says where a saved memory's valid time came from (DateGiven,
// DateText or DateSave), for the save's answer: an undated note about
// another time becomes the current value, so the answer says so. given is
// the date the request carried ("" for none).
func DateSource(given string, m *ihmtv1.Memory) string {
	switch {
	case m.GetValidFrom().AsTime().Equal(m.GetRecordedAt().AsTime()):
		// The store sets the valid time to the record time exactly when
		// it knows no other.
		return DateSave
	case given != "":
		return DateGiven
	}
	return DateText
}

// DateSourceText is a DateSource in words, for people and models.
var DateSourceText = map[string]string{
	DateGiven: "the date given",
	DateText:  "the date the text opens with",
	DateSave:  "the time of the save: no date was given and the text opens with none",
}
