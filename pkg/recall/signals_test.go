package recall

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// TestSignalBudget: the multiplying signals together stay within the
// stated budget, and every row is named, staged, explained and bounded.
func TestSignalBudget(t *testing.T) {
	low, high := 1.0, 1.0
	seen := map[string]bool{}
	for _, s := range Signals {
		if s.Name == "" || strings.IndexFunc(s.Name, func(r rune) bool { return !unicode.IsLower(r) && r != '_' }) >= 0 || seen[s.Name] {
			t.Errorf("signal %q: a name is one lower-case word, once", s.Name)
		}
		seen[s.Name] = true
		if s.Why == "" || s.Stage == "" {
			t.Errorf("signal %s: no why or no stage", s.Name)
		}
		multiplies := s.Low != 0 || s.High != 0
		if !multiplies && s.Bound == "" && s.Stage != StageVerdict {
			t.Errorf("signal %s moves ranks but states no bound", s.Name)
		}
		if multiplies && (s.Low > 1 || s.High < 1 || s.Low <= 0) {
			t.Errorf("signal %s: bounds %v..%v must straddle 1", s.Name, s.Low, s.High)
		}
		if multiplies && s.Stage != StageRewrite { // a rewrite weighs a word, not a score
			low *= s.Low
			high *= s.High
		}
	}
	if low < scoreBudgetLow-1e-9 || high > scoreBudgetHigh+1e-9 {
		t.Fatalf("the multiplying signals reach ×%.3f..×%.3f, outside the budget ×%.2f..×%.2f", low, high, scoreBudgetLow, scoreBudgetHigh)
	}
	t.Logf("multiplying signals together: ×%.3f..×%.3f (budget ×%.2f..×%.2f)", low, high, scoreBudgetLow, scoreBudgetHigh)
}

// TestSignalSwitchesAreWired: every row is switched somewhere in the
// package's code (a row no code asks for would measure nothing), and an
// unknown name is refused while a known one is taken (positive control).
func TestSignalSwitchesAreWired(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var code strings.Builder
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		code.Write(b)
	}
	for _, s := range Signals {
		if !strings.Contains(code.String(), `on("`+s.Name+`")`) {
			t.Errorf("signal %s has a row but no switch in the code", s.Name)
		}
	}
	if _, err := ParseSwitches([]string{"home", " concept "}); err != nil {
		t.Fatalf("known signals refused: %v", err)
	}
	if _, err := ParseSwitches([]string{"no_such_signal"}); !errors.Is(err, leaf.ErrInvalid) {
		t.Fatalf("an unknown signal: err %v, want ErrInvalid", err)
	}
}
