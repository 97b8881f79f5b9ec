package dates

import (
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	day := time.Date(2024, 3, 11, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{"2024-03-11", day, false},
		{" 2024-03-11 ", day, false},
		{"2024-03-11T09:30:00Z", day.Add(9*time.Hour + 30*time.Minute), false},
		{"2024-03-11T09:30:00+02:00", day.Add(7*time.Hour + 30*time.Minute), false},
		{"2024-03-11T09:30", day.Add(9*time.Hour + 30*time.Minute), false},
		{"2024-03-11 09:30", day.Add(9*time.Hour + 30*time.Minute), false},
		{"2024-13-01", time.Time{}, true},
		{"2024-02-30", time.Time{}, true},
		{"11/03/2024", time.Time{}, true},
		{"yesterday", time.Time{}, true},
		{"", time.Time{}, true},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("Parse(%q) error = %v, wantErr %v", tt.in, err, tt.wantErr)
			continue
		}
		if !got.Equal(tt.want) {
			t.Errorf("Parse(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestLeading(t *testing.T) {
	tests := []struct {
		in   string
		want string // Format of the result, "" for none
	}{
		{"2024-03-11: moved to Valencia", "2024-03-11"},
		{"  2024-03-11 09:30 standup notes", "2024-03-11T09:30:00Z"},
		{"2024-03-11T09:30:00+01:00 deploy", "2024-03-11T08:30:00Z"},
		{"2024-13-45 is not a date", ""},
		{"On 2024-03-11 we moved", ""},
		{"20240311 compact form is not recognised", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, ok := Leading(tt.in)
		if tt.want == "" {
			if ok {
				t.Errorf("Leading(%q) = %v, want none", tt.in, got)
			}
			continue
		}
		want, err := Parse(tt.want)
		if err != nil {
			t.Fatal(err)
		}
		if !ok || !got.Equal(want) {
			t.Errorf("Leading(%q) = %v, %v; want %v", tt.in, got, ok, want)
		}
	}
}

func FuzzParseAndLeading(f *testing.F) {
	for _, s := range []string{"2024-03-11", "2024-03-11T09:30:00+02:00", "9999-12-31 23:59", "0000-00-00", "2024-03-11 09:30Z", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, err := Parse(s); err == nil {
			if got.Location() != time.UTC || got.Year() < 1 || got.Year() > 9999 {
				t.Fatalf("Parse(%q) = %v: not a UTC time in range", s, got)
			}
		}
		if got, ok := Leading(s); ok && got.Location() != time.UTC {
			t.Fatalf("Leading(%q) = %v: not UTC", s, got)
		}
	})
}
