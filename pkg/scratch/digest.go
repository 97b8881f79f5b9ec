package scratch

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// A digest is what an agent needs of a long command output to decide what
// to do next: how it began, every line that says something failed (with a
// line of context before and two after, since a failure's cause is usually
// just above or below it), the test runner's totals, and how it ended. The
// whole output stays in the session, in chunks recall can find.

const (
	headLines     = 5
	tailLines     = 10
	maxFailLines  = 40  // failure lines (with context) a digest shows
	maxLineRunes  = 240 // longer lines are cut in the digest (never in the kept text)
	chunkLines    = 40  // lines per searchable chunk of a kept output
	contextBefore = 1
	contextAfter  = 2
)

// failure recognises a line that reports a failure: compiler and runtime
// errors, failed tests of the runners the totals know, panics and
// tracebacks. Lines that only count failures ("0 failed") are totals, not
// failures.
var failure = regexp.MustCompile(`(?i)(\berror\b|\berrors\b|\bfail\b|\bfailed\b|\bfailure\b|\bfailures\b|\bpanic\b|\bfatal\b|exception\b|traceback|\bassert(ion)?(error)?\b|npm err!|^\s*E\s{2,}|✗|✕|×)`)

// noFailure is a counting line that says nothing failed.
var noFailure = regexp.MustCompile(`(?i)(\b0 (failed|failures|errors?)\b|failures: 0, errors: 0|\bno errors?\b|\b0 failing\b|fail(ed|ures)?[:=]\s*0\b)`)

// Test totals per runner. Each pattern matches a line the runner prints
// once per run or per package; totalsOf sums or keeps them.
var (
	goPkgOK   = regexp.MustCompile(`^ok\s+\S+\s`)
	goPkgFail = regexp.MustCompile(`^FAIL\s+\S+\s`)
	goTest    = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): `)
	pytest    = regexp.MustCompile(`^=+ (.*\b\d+ (passed|failed|errors?|skipped|xfailed|xpassed|deselected)\b.*) =+\s*$`)
	jest      = regexp.MustCompile(`^(Tests|Test Suites|Snapshots):\s+.*\btotal\b`)
	vitest    = regexp.MustCompile(`^\s*(Test Files|Tests)\s+.*\(\d+\)\s*$`)
	cargo     = regexp.MustCompile(`^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed;`)
	junit     = regexp.MustCompile(`Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)`)
	maven     = regexp.MustCompile(`\bBUILD (SUCCESS|FAILURE)\b`)
	gradle    = regexp.MustCompile(`^\d+ tests? completed(, \d+ failed)?(, \d+ skipped)?`)
)

// Digest is a condensed output.
type Digest struct {
	Text     string
	Lines    int
	Failures int
	Totals   []string
}

// Condense digests text, named label.
func Condense(label, text string) Digest {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	d := Digest{Lines: len(lines), Totals: totalsOf(lines)}
	var fails []int
	for i, l := range lines {
		if failure.MatchString(l) && !noFailure.MatchString(l) {
			fails = append(fails, i)
		}
	}
	d.Failures = len(fails)
	var b strings.Builder
	fmt.Fprintf(&b, "[%s: %d lines, %d failure lines]\n", label, d.Lines, d.Failures)
	if len(d.Totals) > 0 {
		b.WriteString("totals:\n")
		for _, t := range d.Totals {
			fmt.Fprintf(&b, "  %s\n", t)
		}
	}
	shown := make([]bool, len(lines))
	if len(lines) <= headLines+tailLines+maxFailLines/2 {
		// Short enough to show whole.
		writeLines(&b, "output", lines, 0, len(lines), shown)
		d.Text = b.String()
		return d
	}
	writeLines(&b, "first lines", lines, 0, headLines, shown)
	tail := len(lines) - tailLines
	more := writeFailures(&b, lines, fails, shown, tail)
	writeLines(&b, "last lines", lines, tail, len(lines), shown)
	if more > 0 {
		fmt.Fprintf(&b, "(%d more failure lines not shown: recall finds them)\n", more)
	}
	d.Text = b.String()
	return d
}

// writeFailures writes each failure line with its context, up to
// maxFailLines lines, skipping what the head and tail show; it returns how
// many failure lines did not fit.
func writeFailures(b *strings.Builder, lines []string, fails []int, shown []bool, tail int) (more int) {
	used, header := 0, false
	last := -1
	for k, f := range fails {
		lo, hi := max(f-contextBefore, headLines), min(f+contextAfter+1, tail)
		if f < headLines || f >= tail {
			continue
		}
		if used+(hi-lo) > maxFailLines {
			return len(fails) - k
		}
		if !header {
			b.WriteString("failures (with context):\n")
			header = true
		}
		if last >= 0 && lo > last {
			b.WriteString("  …\n")
		}
		for i := max(lo, last); i < hi; i++ {
			if !shown[i] {
				writeLine(b, lines, i)
				shown[i] = true
				used++
			}
		}
		last = hi
	}
	return 0
}

func writeLines(b *strings.Builder, title string, lines []string, from, to int, shown []bool) {
	fmt.Fprintf(b, "%s (%d-%d):\n", title, from+1, to)
	for i := from; i < to; i++ {
		if !shown[i] {
			writeLine(b, lines, i)
			shown[i] = true
		}
	}
}

func writeLine(b *strings.Builder, lines []string, i int) {
	l := strings.TrimRight(lines[i], "\r")
	if r := []rune(l); len(r) > maxLineRunes {
		l = string(r[:maxLineRunes]) + "…"
	}
	fmt.Fprintf(b, "%6d  %s\n", i+1, l)
}

// totalsOf finds the test totals of the runners it knows: go test's
// package and test counts, pytest's and jest's or vitest's summary lines,
// cargo's results summed, JUnit/Maven's last "Tests run" line and build
// result, Gradle's count.
func totalsOf(lines []string) []string {
	var out []string
	var goOK, goFail, goPass, goFailed, goSkip int
	var cargoRuns, cargoPass, cargoFail int
	var lastJUnit, lastMaven string
	for _, raw := range lines {
		l := strings.TrimRight(raw, "\r")
		switch {
		case goPkgOK.MatchString(l):
			goOK++
		case goPkgFail.MatchString(l):
			goFail++
		case goTest.MatchString(l):
			switch goTest.FindStringSubmatch(l)[1] {
			case "PASS":
				goPass++
			case "FAIL":
				goFailed++
			default:
				goSkip++
			}
		case pytest.MatchString(l):
			out = append(out, "pytest: "+pytest.FindStringSubmatch(l)[1])
		case jest.MatchString(l), vitest.MatchString(l), gradle.MatchString(l):
			out = append(out, strings.TrimSpace(l))
		case cargo.MatchString(l):
			m := cargo.FindStringSubmatch(l)
			cargoRuns++
			cargoPass += atoi(m[2])
			cargoFail += atoi(m[3])
		}
		if m := junit.FindString(l); m != "" {
			lastJUnit = m
		}
		if m := maven.FindString(l); m != "" {
			lastMaven = m
		}
	}
	if goOK+goFail > 0 || goPass+goFailed > 0 {
		out = append(out, fmt.Sprintf("go test: %d packages ok, %d FAIL; tests listed: %d passed, %d failed, %d skipped", goOK, goFail, goPass, goFailed, goSkip))
	}
	if cargoRuns > 0 {
		out = append(out, fmt.Sprintf("cargo test: %d passed, %d failed (%d result lines)", cargoPass, cargoFail, cargoRuns))
	}
	if lastJUnit != "" {
		out = append(out, "junit: "+lastJUnit)
	}
	if lastMaven != "" {
		out = append(out, "maven: "+lastMaven)
	}
	return out
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// DigestOutput condenses text and keeps all of it in session id, in
// chunks of lines that recall finds.
func (s *Sessions) DigestOutput(id, text, label string) (Entry, Digest, Usage, error) {
	if err := validID(id); err != nil {
		return Entry{}, Digest{}, Usage{}, err
	}
	label = strings.TrimSpace(label)
	if label == "" {
		label = "output"
	}
	if len(label) > 200 || strings.ContainsAny(label, "\n\r") {
		return Entry{}, Digest{}, Usage{}, fmt.Errorf("%w: the label must be one line of at most 200 bytes", leaf.ErrInvalid)
	}
	if err := validText("output", text, s.lim.OutputBytes); err != nil {
		return Entry{}, Digest{}, Usage{}, err
	}
	d := Condense(label, text)
	s.mu.Lock()
	defer s.mu.Unlock()
	ss := s.session(id)
	e := ss.newEntry(kindOutput, label, s.now())
	e.bytes = int64(len(text))
	lines := strings.SplitAfter(text, "\n")
	for from := 0; from < len(lines); from += chunkLines {
		to := min(from+chunkLines, len(lines))
		t := strings.Join(lines[from:to], "")
		if strings.TrimSpace(t) == "" {
			continue
		}
		e.chunks = append(e.chunks, chunk{text: t, first: from + 1, last: to})
	}
	u := s.add(ss, e)
	return e.public(), d, u, nil
}
