package dates_test

import (
	"fmt"

	"github.com/ihmt-dev/ihmt/pkg/dates"
)

// Parse reads the date a caller gives with a save; its error says which
// forms it takes.
func ExampleParse() {
	for _, s := range []string{"2024-03-11", "2024-03-11T09:30:00+01:00", "11/03/2024"} {
		t, err := dates.Parse(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(t.Format("2006-01-02 15:04 MST"))
	}
	// Output:
	// 2024-03-11 00:00 UTC
	// 2024-03-11 08:30 UTC
	// malformed date "11/03/2024": use YYYY-MM-DD or RFC 3339 (2024-03-11T09:30:00Z)
}

// Opening reads the date a journal entry, a chat line or a visit opens
// with, in the forms people write, and says where the rest begins.
func ExampleOpening() {
	for _, line := range []string{
		"1:56 pm on 8 May, 2023\nCaroline: I went to a support group.",
		"## lunes, 8 de mayo de 2023 — cena con Ana",
		"05/28/2023: month first, since day first cannot be",
		"On 8 May 2023 we moved", // mentions a date, does not open with one
		"8/5/23 is too ambiguous",
	} {
		t, end, ok := dates.Opening(line)
		if !ok {
			fmt.Println("none")
			continue
		}
		fmt.Printf("%s | %q\n", t.Format("2006-01-02 15:04"), line[end:])
	}
	// Output:
	// 2023-05-08 13:56 | "\nCaroline: I went to a support group."
	// 2023-05-08 00:00 | " — cena con Ana"
	// 2023-05-28 00:00 | ": month first, since day first cannot be"
	// none
	// none
}

// Find reads the first date a text mentions, at a word boundary.
func ExampleFind() {
	text := "Visita del 12/03/2024: control de tensión; build v2023-05-08x."
	t, start, end, ok := dates.Find(text)
	fmt.Println(t.Format("2006-01-02"), text[start:end], ok)
	// Output:
	// 2024-03-12 12/03/2024 true
}
