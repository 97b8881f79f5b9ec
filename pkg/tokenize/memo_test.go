package tokenize

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

// TestMemoAnswersAsTokenizing checks that a memoised text reads exactly as
// a fresh tokenization, on its first reading and its later ones, and that a
// caller changing what it was given changes nothing for the next caller.
func TestMemoAnswersAsTokenizing(t *testing.T) {
	texts := []string{
		"2024-03-11 We chose PostgreSQL 17 for staging: the importer needs MERGE … RETURNING.",
		"Nos mudamos a Zaragoza en marzo; el piso nuevo está en la calle Alfonso I, cerca del Pilar.",
		"parseHTTPRequests lives in internal/http_util and won't handle chunked bodies yet",
		"short text", // under memoMin: never memoised, the same answer
	}
	for _, text := range texts {
		var fresh []string
		var freshStops []bool
		each(text, func(term string, stop bool) { fresh, freshStops = append(fresh, term), append(freshStops, stop) })
		freshWords := words(text)
		for reading := range 3 {
			if got := tokens(text); !slices.Equal(got.strings(), fresh) || !slices.Equal(got.stops, freshStops) {
				t.Fatalf("%q reading %d: tokens %v %v, want %v %v", text, reading, got.strings(), got.stops, fresh, freshStops)
			}
			got := Words(text)
			if !slices.Equal(got, freshWords) {
				t.Fatalf("%q reading %d: Words %v, want %v", text, reading, got, freshWords)
			}
			got[0] = "changed by a caller"
			toks := Tokens(text)
			toks[0] = "changed by a caller"
		}
		if got := Tokens(text); got[0] != fresh[0] {
			t.Fatalf("%q: a caller's change reached the memo: %q", text, got[0])
		}
	}
}

// TestMemoConcurrentReaders has many goroutines read overlapping texts
// while the memo's slots are replaced (run with -race).
func TestMemoConcurrentReaders(t *testing.T) {
	texts := make([]string, 3*memoSlots)
	for i := range texts {
		texts[i] = fmt.Sprintf("memory number %d about the staging database and its backups, kept in bucket-%d", i, i%7)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				text := texts[(i*7+g*131)%len(texts)]
				want := fmt.Sprint((i*7 + g*131) % len(texts))
				if got := Terms(text); !slices.Contains(got, want) {
					t.Errorf("Terms(%q) = %v, lacks %q", text, got, want)
					return
				}
			}
		})
	}
	wg.Wait()
}

// TestMemoForget checks that a text read lately is held by the memos and
// that Forget lets go of it (a purged memory's text).
func TestMemoForget(t *testing.T) {
	text := "The staging database password lives in 1Password under infra/staging, not here."
	Terms(text)
	Words(text)
	held := func() (tokens, words bool) {
		sh, slot := tokenMemo.slot(text)
		wsh, wslot := wordMemo.slot(text)
		sh.mu.Lock()
		tokens = sh.texts[slot] == text
		sh.mu.Unlock()
		wsh.mu.Lock()
		words = wsh.texts[wslot] == text
		wsh.mu.Unlock()
		return tokens, words
	}
	if tok, w := held(); !tok || !w {
		t.Fatalf("positive control: a text just read is not in the memos (tokens %v, words %v)", tok, w)
	}
	Forget(text)
	if tok, w := held(); tok || w {
		t.Fatalf("after Forget the memos still hold the text (tokens %v, words %v)", tok, w)
	}
	if got := Terms(text); !slices.Contains(got, "1password") {
		t.Errorf("after Forget the text reads differently: %v", got)
	}
}
