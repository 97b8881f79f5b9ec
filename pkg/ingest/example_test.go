package ingest_test

import (
	"fmt"

	"github.com/ihmt-dev/ihmt/pkg/ingest"
)

func ExampleSplit() {
	src := `package shop

import "fmt"

// Price formats cents as euros.
func Price(cents int) string {
	return fmt.Sprintf("%d,%02d €", cents/100, cents%100) // "{" is not a brace
}

func Free() string { return "}" }
`
	det, blocks := ingest.Split("shop.go", src, ingest.Options{MaxBytes: 80})
	fmt.Println(det.Type, det.Domain)
	for _, b := range blocks {
		fmt.Printf("%q oversized=%v\n", b.Title, b.Oversized)
	}
	// Output:
	// code software.go
	// "package shop" oversized=false
	// "Price" oversized=true
	// "Free" oversized=false
}

func ExampleSplit_journal() {
	journal := "1:56 pm on 8 May, 2023\nCaroline: I went to a support group and I felt better.\n\n" +
		"8 de mayo de 2023: cena con Ana.\n\n" +
		"May 9th 2023 was quiet.\n"
	det, blocks := ingest.Split("", journal, ingest.Options{})
	fmt.Println(det.Type, det.Domain)
	for _, b := range blocks {
		fmt.Println(b.ValidFrom.Format("2006-01-02 15:04"), len(b.Text))
	}
	// Output:
	// temporal personal
	// 2023-05-08 13:56 113
	// 2023-05-09 00:00 24
}
