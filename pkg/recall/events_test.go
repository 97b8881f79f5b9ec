package recall

import (
	"testing"
	"time"
)

func TestNamedDay(t *testing.T) {
	dated := time.Date(2025, 12, 2, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		text string
		want string // "" when the text names no day
	}{
		{"Dentist appointment on Wednesday 2025-12-10 at 09:30.", "2025-12-10"},
		{"Revisión en el pediatra el jueves 11 de diciembre a las 17:15.", "2025-12-11"},
		{"Appointment at the registry on 20 March 2025 at 09:10.", "2025-03-20"},
		{"The rate went up in December.", ""},
	} {
		day, ok := namedDay(tt.text, dated)
		if got := map[bool]string{true: day.Format(time.DateOnly)}[ok]; got != tt.want {
			t.Errorf("namedDay(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// FuzzNamedDay: any text reads without a panic.
func FuzzNamedDay(f *testing.F) {
	for _, s := range []string{"el 11 de diciembre", "99 march", "0 de enero", "31 february", "2025-13-40", "when is it"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		namedDay(text, time.Date(2025, 12, 2, 0, 0, 0, 0, time.UTC))
		asksWhen(text)
	})
}
