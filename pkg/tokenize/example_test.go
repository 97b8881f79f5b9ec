package tokenize_test

import (
	"fmt"

	"github.com/ihmt-dev/ihmt/pkg/tokenize"
)

// Tokens splits identifiers and keeps them whole, folds accents and stems
// words; Terms, the query side, also drops stop words.
func Example() {
	fmt.Println(tokenize.Tokens("parseHTTPRequests lived in the café"))
	fmt.Println(tokenize.Terms("Where did I live in 2024?"))
	// Output:
	// [pars http request parsehttprequests live in the cafe]
	// [live 2024]
}
