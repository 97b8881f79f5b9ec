package scratch

import (
	"fmt"
	"strings"
	"testing"
)

// filler is n lines of ordinary progress output.
func filler(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "compiling module step %d\n", i)
	}
	return b.String()
}

func TestCondense(t *testing.T) {
	for _, c := range []struct {
		name   string
		text   string
		totals []string // each must be in one total
		fails  []string // each must be in the digest
	}{
		{"go test",
			filler(50) + "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 3, want 4\n" + filler(50) +
				"--- PASS: TestOther (0.00s)\nFAIL\nFAIL\tgithub.com/x/p\t0.01s\nok  \tgithub.com/x/q\t0.02s\n",
			[]string{"go test: 1 packages ok, 1 FAIL; tests listed: 1 passed, 1 failed"}, []string{"--- FAIL: TestParse", "got 3, want 4"}},
		{"pytest",
			filler(60) + "FAILED tests/test_x.py::test_y - AssertionError: boom\n" + filler(40) +
				"=================== 1 failed, 41 passed, 2 skipped in 0.52s ===================\n",
			[]string{"pytest: 1 failed, 41 passed, 2 skipped in 0.52s"}, []string{"AssertionError: boom"}},
		{"jest",
			filler(60) + "  ● Suite › renders the header\n    expect(received).toBe(expected)\n" + filler(40) +
				"Test Suites: 1 failed, 3 passed, 4 total\nTests:       2 failed, 30 passed, 32 total\n",
			[]string{"Test Suites: 1 failed, 3 passed, 4 total", "Tests:       2 failed, 30 passed, 32 total"}, nil},
		{"vitest",
			filler(80) + " Test Files  1 failed | 2 passed (3)\n      Tests  1 failed | 9 passed (10)\n",
			[]string{"Test Files  1 failed | 2 passed (3)", "Tests  1 failed | 9 passed (10)"}, nil},
		{"cargo",
			filler(60) + "test parse::tests::bad ... FAILED\n" + filler(40) +
				"test result: FAILED. 7 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s\n" +
				"test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n",
			[]string{"cargo test: 10 passed, 1 failed (2 result lines)"}, []string{"parse::tests::bad ... FAILED"}},
		{"maven",
			filler(60) + "[ERROR] Tests run: 5, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.1 s <<< FAILURE! - in FooTest\n" + filler(40) +
				"[ERROR] Tests run: 12, Failures: 1, Errors: 0, Skipped: 1\n[INFO] BUILD FAILURE\n",
			[]string{"junit: Tests run: 12, Failures: 1, Errors: 0, Skipped: 1", "maven: BUILD FAILURE"}, []string{"<<< FAILURE! - in FooTest"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := Condense(c.name, c.text)
			all := strings.Join(d.Totals, "\n")
			for _, want := range c.totals {
				if !strings.Contains(all, strings.TrimSpace(want)) {
					t.Errorf("totals %q lack %q", d.Totals, want)
				}
			}
			for _, want := range c.fails {
				if !strings.Contains(d.Text, want) {
					t.Errorf("digest lacks the failure %q:\n%s", want, d.Text)
				}
			}
			// First and last lines, and not the whole output.
			if !strings.Contains(d.Text, "compiling module step 0") || !strings.Contains(d.Text, strings.TrimSpace(lastLine(c.text))) {
				t.Errorf("digest lacks the first or last line:\n%s", d.Text)
			}
			if strings.Contains(d.Text, "compiling module step 30\n") || len(d.Text) > len(c.text)/2 {
				t.Errorf("digest of %d bytes holds the middle (%d bytes):\n%s", len(c.text), len(d.Text), d.Text)
			}
		})
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// TestCondenseCounts: a counting line that says nothing failed is not a
// failure; a short output is shown whole.
func TestCondenseCounts(t *testing.T) {
	d := Condense("out", "Tests run: 4, Failures: 0, Errors: 0, Skipped: 0\n0 failed, 4 passed\nall good\n")
	if d.Failures != 0 {
		t.Errorf("counted %d failures in a clean run:\n%s", d.Failures, d.Text)
	}
	if !strings.Contains(d.Text, "all good") {
		t.Errorf("a short output is not shown whole:\n%s", d.Text)
	}
	// Positive control: the same shape with a failure counts it.
	if d := Condense("out", "error: cannot find symbol Foo\nall good\n"); d.Failures != 1 {
		t.Errorf("failures = %d, want 1", d.Failures)
	}
}

// TestDigestKeepsEveryLine: recall finds any line of a digested output.
func TestDigestKeepsEveryLine(t *testing.T) {
	s, _ := newTest(Limits{})
	text := filler(200) + "the unique flamingo line\n" + filler(200)
	_, d, _, err := s.DigestOutput("a", text, "make")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(d.Text, "flamingo") {
		t.Fatal("the test line is in the digest; pick one that is not")
	}
	r, err := s.Recall("a", "flamingo", "", 0)
	if err != nil || len(r.Hits) == 0 || r.Hits[0].Kind != "output" || r.Hits[0].Label != "make" ||
		r.Hits[0].First > 201 || r.Hits[0].Last < 201 || !strings.Contains(r.Hits[0].Text, "flamingo") {
		t.Fatalf("recall of a kept line: %+v %v", r, err)
	}
}
