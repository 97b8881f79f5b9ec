package ui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// chromium is Debian's headless-capable browser; CI installs it (.ci/run).
const chromium = "/usr/bin/chromium"

// artifacts is where the browser test leaves its screenshots: $IHMT_ARTIFACTS
// when set (CI prints the paths), else the test's temporary directory.
func artifacts(t *testing.T) string {
	if dir := os.Getenv("IHMT_ARTIFACTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.TempDir()
}

// TestInABrowser drives the page in headless Chromium against a real ihmtd
// with a seeded store, started and reached through the real `ihmt`: the
// outline lists a memory, markup in a memory stays text, a search shows its
// verdict, approving a pending save makes it verified for the CLI, the
// screens switch with the keyboard and the page speaks Spanish. Each screen
// is saved as a screenshot.
func TestInABrowser(t *testing.T) {
	if _, err := os.Stat(chromium); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing: CI must install Debian's chromium (apt-get install -y chromium)", chromium)
		}
		t.Skipf("%s is missing: install Debian's chromium to run the browser test", chromium)
	}
	bins := testenv.Built(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	live, err := testenv.StartLive(ctx, bins, filepath.Join(t.TempDir(), "store"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer live.Stop()
	ids := seed(t, ctx, live.Socket())
	ihmt := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, bins.CLI, args...)
		cmd.Env, cmd.Dir = live.Environ(alpha), t.TempDir()
		out, err := cmd.Output()
		return string(out), err
	}
	if page := doctorPage(t, ihmt); !strings.Contains(page, "not served") {
		t.Errorf("doctor before `ihmt ui`: page check %q, want not served", page)
	}
	out, err := ihmt("ui", "--no-browser", "--json")
	if err != nil {
		t.Fatalf("ihmt ui: %v %s", err, out)
	}
	var served struct {
		URL  string `json:"url"`
		Port int    `json:"port"`
	}
	if err := json.Unmarshal([]byte(out), &served); err != nil || !strings.HasPrefix(served.URL, "http://127.0.0.1:") {
		t.Fatalf("ihmt ui --json: %q %v", out, err)
	}
	if text, err := ihmt("ui", "--no-browser"); err != nil || !strings.Contains(text, served.URL) {
		t.Errorf("ihmt ui (text) again: %q %v: want the same address", text, err)
	}
	address := fmt.Sprintf("http://127.0.0.1:%d/", served.Port)
	if page := doctorPage(t, ihmt); !strings.Contains(page, "served at "+address) {
		t.Errorf("doctor after `ihmt ui`: page check %q, want served at %s", page, address)
	}

	b := newBrowser(t, ctx, artifacts(t))
	b.do("load the page", chromedp.Navigate(served.URL), chromedp.WaitVisible(chromedp.CSS("#outline .tree-btn")))
	if loc := run(b, "read the address", chromedp.Location()); !strings.HasPrefix(loc, address) || strings.Contains(loc, "token") {
		t.Errorf("after the first load the address is %q, want %q (the token traded for the cookie)", loc, address)
	}
	s := &scene{t: t, b: b, ihmt: ihmt, ids: ids, address: address}
	s.explore()
	s.markupIsText()
	s.forgetAndRestore()
	s.diagnose()
	s.timeline()
	s.review()
	s.audit()
	s.spanish()
	s.narrow()
}

// scene is what the browser test's steps share.
type scene struct {
	t       *testing.T
	b       *browser
	ihmt    func(...string) (string, error)
	ids     seeded
	address string
}

// explore: the outline lists a memory, which opens with its header.
func (s *scene) explore() {
	s.t.Helper()
	t, b := s.t, s.b
	b.do("expand the outline", chromedp.Click(chromedp.CSS("#explore-expand")))
	b.waitTrue("the outline lists a memory", `document.querySelector("#outline").textContent.includes("I live in Lisbon")`)
	b.openLeaf("I live in Lisbon")
	b.waitTrue("the memory opens", `document.querySelector("#memory pre.content")?.textContent === `+jsString(textLisbon))
	b.waitTrue("its audit entries load", `document.querySelector("#memory .entries table") !== null`)
	// The one model of what is current: Lisbon is; Madrid, opened next, is
	// not, and names what superseded it.
	b.waitTrue("the memory says it is current", `document.querySelector("#memory [data-current]")?.dataset.current === "true"`)
	b.openLeaf("I live in Madrid")
	b.waitTrue("the superseded memory says it is not current", `document.querySelector("#memory [data-current]")?.dataset.current === "false"`)
	b.openLeaf("I live in Lisbon")
	b.waitTrue("the memory opens again", `document.querySelector("#memory pre.content")?.textContent === `+jsString(textLisbon))
	// Times read as the CLI prints them (client.FormatTime): the date alone
	// for a date, else the date and minute in UTC — never a locale's form.
	times := run(b, "read the memory's times", chromedp.Evaluate[[]string](`[...document.querySelectorAll("#memory dl.fields dd")].map(d => d.textContent).filter(x => /^\d{4}-/.test(x))`))
	if len(times) < 2 || times[0] != "2024-06-01" || !regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$`).MatchString(times[1]) {
		t.Errorf("the memory's valid-from and recorded-at read %q: want 2024-06-01 and YYYY-MM-DD HH:MM UTC", times)
	}
	b.waitTrue("the outline shows agents and trust", `document.querySelectorAll("#outline .meta .chip.trust-verified").length > 0`)
	// The memory a later one superseded carries the OUTDATED chip; the
	// later one does not (its positive twin).
	meta := func(words string) string {
		return `[...document.querySelectorAll("#outline li.leaf")].find(li => li.textContent.includes(` + jsString(words) + `))?.querySelector(".meta")?.textContent || ""`
	}
	b.waitTrue("the superseded memory is marked OUTDATED", "("+meta(textMadrid)+`).includes("OUTDATED")`)
	if got := run(b, "read the current memory's chips", chromedp.Evaluate[string](meta(textLisbon))); strings.Contains(got, "OUTDATED") || got == "" {
		t.Errorf("the current memory's chips %q: want them shown, without OUTDATED", got)
	}
	b.shot("explore")
}

// markupIsText: markup in a memory is shown as written, never run.
func (s *scene) markupIsText() {
	s.t.Helper()
	t, b := s.t, s.b
	for _, text := range []string{textScript, textImg} {
		b.openLeaf(strings.SplitN(text, ":", 2)[0])
		b.waitTrue("the markup memory opens", `document.querySelector("#memory pre.content")?.textContent === `+jsString(text))
		ran := run(b, "markup is not run", chromedp.Evaluate[bool](`window.__ihmtXSS !== undefined`))
		elements := run(b, "markup makes no element", chromedp.Evaluate[bool](`document.querySelectorAll("#memory pre.content *, body script:not([src]), #main img").length > 0`))
		if ran || elements {
			t.Errorf("%q: ran %v, made elements %v: want it shown as text only", text, ran, elements)
		}
	}
	b.shot("explore-markup")
}

// forgetAndRestore: forget asks first, with a reason; restore brings the memory back.
func (s *scene) forgetAndRestore() {
	s.t.Helper()
	t, b := s.t, s.b
	ihmt := s.ihmt
	ids := s.ids
	b.openLeaf("Prefer tabs")
	b.do("forget", chromedp.Click(chromedp.CSS("#memory .actions button.danger")), chromedp.WaitVisible(chromedp.CSS("#confirm-input")),
		chromedp.SendKeys(chromedp.CSS("#confirm-input"), "tried in the browser"), chromedp.Click(chromedp.CSS("#confirm-ok")))
	b.waitTrue("the tombstone shows", `document.querySelector("#memory .callout.bad")?.textContent.includes("tried in the browser")`)
	b.shot("explore-forgotten")
	if out, err := ihmt("search", "tabs spaces Go code", "--json"); err != nil || strings.Contains(out, ids[textTabs]) {
		t.Errorf("the CLI still finds the memory forgotten on the page: %v\n%s", err, out)
	}
	b.do("restore", chromedp.Click(chromedp.CSS("#memory .actions button:not(.danger)")))
	b.waitTrue("restored", `document.querySelector("#memory .callout.bad") === null && document.querySelector("#memory .actions button.danger") !== null`)
	if out, err := ihmt("search", "tabs spaces Go code", "--json"); err != nil || !strings.Contains(out, ids[textTabs]) {
		t.Errorf("the CLI does not find the memory restored on the page: %v\n%s", err, out)
	}
}

// diagnose: a search shows its verdict, confidence and ranking.
func (s *scene) diagnose() {
	s.t.Helper()
	t, b := s.t, s.b
	b.do("open Diagnose", chromedp.Click(chromedp.CSS("#tab-diagnose")), chromedp.WaitVisible(chromedp.CSS("#q")),
		chromedp.SendKeys(chromedp.CSS("#q"), "where do I live\r"))
	b.waitTrue("the verdict shows", `document.querySelector("[data-verdict]") !== null`)
	verdict := run(b, "read the verdict", chromedp.Evaluate[string](`document.querySelector("[data-verdict]").dataset.verdict`))
	first := run(b, "read the ranking", chromedp.Evaluate[string](`document.querySelector("table.ranking tbody tr td:nth-child(3)").textContent`))
	if verdict != "found" || !strings.Contains(first, "Lisbon") {
		t.Errorf("search where do I live: verdict %q, first %q: want found, Lisbon", verdict, first)
	}
	// The superseded memory's row names what corrected it.
	row := `[...document.querySelectorAll("table.ranking tbody tr")].find(tr => tr.querySelector("td:nth-child(3)").textContent === ` + jsString(textMadrid) + `)`
	by := strings.TrimSpace(run(b, "read Corrected by", chromedp.Evaluate[string](row+`?.querySelector("td:nth-child(8)")?.textContent || ""`)))
	if by != s.ids[textLisbon] {
		t.Errorf("Madrid's Corrected by %q, want %s (the Lisbon memory)", by, s.ids[textLisbon])
	}
	// The trace: every ranked memory with its BM25 score, and the case
	// that decided the verdict.
	b.waitTrue("the trace shows", `document.querySelector("#trace table tbody tr") !== null`)
	decided := run(b, "read the deciding case", chromedp.Evaluate[string](`document.querySelector("#trace [data-decided]").dataset.decided`))
	rows := run(b, "count the traced memories", chromedp.Evaluate[int](`document.querySelectorAll("#trace table tbody tr").length`))
	if decided != "found" || rows < 2 {
		t.Errorf("the trace says decided %q over %d ranked memories: want found, both Madrid and Lisbon", decided, rows)
	}
	b.shot("diagnose")
}

// timeline: the facts over valid time; a probable successor undone.
func (s *scene) timeline() {
	s.t.Helper()
	t, b := s.t, s.b
	ihmt := s.ihmt
	b.do("open Timeline", chromedp.Click(chromedp.CSS("#tab-timeline")))
	b.waitTrue("the timeline draws", `document.querySelector("#timeline-out .fact-row, #timeline-out .empty") !== null && document.querySelector("#probable-out .loading") === null`)
	b.shot("timeline")
	// Undo the probable successor the store inferred: the older memory is
	// current again, for the CLI too.
	probable := func() int {
		out, err := ihmt("conflicts", "--json")
		var c struct {
			Probable []struct{} `json:"probable"`
		}
		if err != nil || json.Unmarshal([]byte(out), &c) != nil {
			t.Fatalf("ihmt conflicts --json: %v\n%s", err, out)
		}
		return len(c.Probable)
	}
	if n := probable(); n != 1 {
		t.Fatalf("positive control: the CLI lists %d probable successors, want the seeded one", n)
	}
	// What the link is about reads as the memories wrote it, not as stems.
	about := run(b, "read what the probable link is about", chromedp.Evaluate[[]string](`[...document.querySelectorAll("#probable-out .card.probable p .chip")].map(c => c.textContent)`))
	pair := run(b, "read the pair's texts", chromedp.Evaluate[string](`[...document.querySelectorAll("#probable-out .card.probable .side .text")].map(p => p.textContent).join(" ")`))
	words := strings.FieldsFunc(pair, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(about) == 0 {
		t.Error("the probable link shows nothing it is about")
	}
	for _, a := range about {
		written := slices.ContainsFunc(words, func(w string) bool { return strings.EqualFold(w, a) })
		stem := slices.ContainsFunc(words, func(w string) bool {
			return len(w) > len(a) && strings.HasPrefix(strings.ToLower(w), strings.ToLower(a))
		})
		if stem && !written {
			t.Errorf("the probable link is about %q, the start of a word the memories wrote (a stem); about %v, the pair %q", a, about, pair)
		}
	}
	if !slices.Contains(about, "Redis") { // the stem "redi", as written
		t.Errorf("the probable link's about %v lacks Redis as written", about)
	}
	b.do("undo the probable successor", chromedp.Click(chromedp.CSS("#probable-out .card.probable button.undo")),
		chromedp.WaitVisible(chromedp.CSS("#probable-out .done")))
	if n := probable(); n != 0 {
		t.Errorf("after Undo on the page the CLI lists %d probable successors, want none", n)
	}
}

// review: approving the pending save makes it verified for the CLI.
func (s *scene) review() {
	s.t.Helper()
	t, b := s.t, s.b
	ihmt := s.ihmt
	ids := s.ids
	pending := ids[textInjected]
	card := `.review-card[data-id="` + pending + `"]`
	b.do("open Review", chromedp.Click(chromedp.CSS("#tab-review")), chromedp.WaitVisible(chromedp.CSS(card)))
	b.shot("review")
	b.do("approve with a note", chromedp.SendKeys(chromedp.CSS(card+" textarea"), "checked in the browser"),
		chromedp.Click(chromedp.CSS(card+" button.primary")), chromedp.WaitVisible(chromedp.CSS(card+" .done")))
	got, err := ihmt("get", pending, "--json")
	if err != nil || !strings.Contains(got, `"trust": "verified"`) || !strings.Contains(got, "checked in the browser") {
		t.Errorf("ihmt get %s after approval: %v\n%s", pending, err, got)
	}
	b.shot("review-approved")
}

// audit: the chain, the store, the daemon; the keyboard moves between screens.
func (s *scene) audit() {
	s.t.Helper()
	t, b := s.t, s.b
	b.do("open Audit", chromedp.Click(chromedp.CSS("#tab-audit")), chromedp.WaitVisible(chromedp.CSS("#audit-out .grid")))
	b.waitTrue("the chain is intact", `document.querySelector("#audit-out .big.good") !== null`)
	b.shot("audit")

	// The keyboard moves between screens.
	b.do("arrow keys on the tabs", chromedp.Focus(chromedp.CSS("#tab-audit")), chromedp.KeyEvent(kb.ArrowLeft))
	if sel := run(b, "read the tabs", chromedp.AttributeValue(chromedp.CSS("#tab-review"), "aria-selected")); sel.Value != "true" {
		t.Errorf("ArrowLeft from Audit: Review selected %q", sel.Value)
	}
}

// spanish: the page speaks Spanish after the switch.
func (s *scene) spanish() {
	s.t.Helper()
	t, b := s.t, s.b
	b.do("switch to Spanish", chromedp.Click(chromedp.CSS(`.lang button[data-lang="es"]`)),
		chromedp.Click(chromedp.CSS("#tab-explore")), chromedp.WaitVisible(chromedp.CSS("#outline .tree-btn")))
	tab := run(b, "read the tab", chromedp.Text(chromedp.CSS("#tab-explore")))
	lang := run(b, "read the language", chromedp.Evaluate[string](`document.documentElement.lang`))
	if tab != "Explorar" || lang != "es" {
		t.Errorf("after the switch: tab %q, lang %q: want Explorar, es", tab, lang)
	}
	b.openLeaf("I live in Lisbon")
	b.waitTrue("the memory's page in Spanish", `document.querySelector("#memory").textContent.includes("Válida desde")`)
	b.shot("explore-es")
	b.do("Diagnose in Spanish", chromedp.Click(chromedp.CSS("#tab-diagnose")), chromedp.Click(chromedp.CSS(`#search-form button[type="submit"]`)))
	b.waitTrue("the verdict in Spanish", `document.querySelector("[data-verdict] .value")?.textContent === "Encontrado"`)
	// The daemon's sentences too: the verdict's message, where it looked,
	// the notice on the superseded memory.
	b.waitTrue("the daemon's message in Spanish", `document.querySelector("#search-out .why p")?.textContent.startsWith("Encontrado en global + proyecto ")`)
	b.waitTrue("the notice in Spanish", `[...document.querySelectorAll("#search-out .notice-line")].some(n => n.textContent.startsWith("DESACTUALIZADA: el "))`)
	b.shot("diagnose-es")
}

// narrow: at 420 pixels every screen scrolls only down, the timeline's
// dates do not overlap and a value that became true today is wide enough
// to read. Each screen is saved as a screenshot.
func (s *scene) narrow() {
	s.t.Helper()
	t, b := s.t, s.b
	b.do("English again", chromedp.Click(chromedp.CSS(`.lang button[data-lang="en"]`)))
	b.do("narrow window", chromedp.EmulateViewport(420, 900, chromedp.EmulateScale(2)))
	for _, sc := range []struct{ name, ready string }{
		{"explore", "#outline .tree-btn"},
		{"diagnose", "#search-out [data-verdict]"},
		{"timeline", "#timeline-out .fact-row"},
		{"review", "#review-out .card, #review-out .empty"},
		{"audit", "#audit-out .grid"},
	} {
		b.do("open "+sc.name, chromedp.Click(chromedp.CSS("#tab-"+sc.name)), chromedp.WaitVisible(chromedp.CSS(sc.ready)))
		if sc.name == "explore" {
			b.openLeaf("I live in Madrid")
			b.waitTrue("the memory opens", `document.querySelector("#memory .entries table, #memory .entries .hint") !== null`)
		}
		if run(b, "no sideways scroll", chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`)) {
			wide := run(b, "what is too wide", chromedp.Evaluate[[]string](`[...document.querySelectorAll("body *")].filter(e => e.getBoundingClientRect().right > window.innerWidth + 1).slice(0, 8).map(e => e.tagName + "." + e.className + "#" + e.id)`))
			t.Errorf("%s on a narrow window scrolls sideways: %v", sc.name, wide)
		}
		b.shot(sc.name + "-narrow")
	}
	// The timeline (the screen open now is audit: back to it).
	b.do("open timeline", chromedp.Click(chromedp.CSS("#tab-timeline")), chromedp.WaitVisible(chromedp.CSS("#timeline-out .fact-row")))
	overlap := run(b, "the axis's dates", chromedp.Evaluate[[]string](`(() => {
		const r = [...document.querySelectorAll("#timeline-out .axis span")].map(e => e.getBoundingClientRect());
		const out = [];
		for (let i = 1; i < r.length; i++) if (r[i].left < r[i-1].right) out.push(i);
		const track = document.querySelector("#timeline-out .axis").getBoundingClientRect();
		if (r.length < 2 || r[0].left < track.left - 1 || r[r.length-1].right > track.right + 1) out.push("outside");
		return out.map(String);
	})()`))
	if len(overlap) > 0 {
		t.Errorf("the timeline's dates overlap or leave the axis at 420 px: %v", overlap)
	}
	narrowest := run(b, "the narrowest value", chromedp.Evaluate[float64](`Math.min(...[...document.querySelectorAll("#timeline-out .seg")].map(e => e.getBoundingClientRect().width))`))
	if narrowest < 60 {
		t.Errorf("a value on the timeline is %.0f px wide at 420 px: too narrow to read", narrowest)
	}
	// Positive control of the overlap check: the five dates of the wide
	// layout, drawn in this width, do overlap.
	crowded := run(b, "five dates in 420 px", chromedp.Evaluate[bool](`(() => {
		const axis = document.querySelector("#timeline-out .axis");
		const saved = axis.innerHTML;
		axis.replaceChildren(...[0, 25, 50, 75, 100].map(q => { const s = document.createElement("span"); s.textContent = "2026-12-07"; s.style.left = q + "%"; return s; }));
		const r = [...axis.querySelectorAll("span")].map(e => e.getBoundingClientRect());
		axis.innerHTML = saved;
		return r.some((x, i) => i > 0 && x.left < r[i-1].right);
	})()`))
	if !crowded {
		t.Error("positive control: five dates in a 420 px axis did not overlap; is the check measuring?")
	}
	// The bare address, without the token: a page that says what to run.
	b.do("the bare address without its cookie", chromedp.Navigate(strings.Replace(s.address, "127.0.0.1", "localhost", 1)))
	b.waitTrue("the no-token page", `document.body.textContent.includes("ihmt ui") && getComputedStyle(document.querySelector("main")).borderRadius !== "0px"`)
	b.shot("no-token-narrow")
}

// doctorPage runs `ihmt doctor --json` and returns its page check's finding.
func doctorPage(t *testing.T, ihmt func(...string) (string, error)) string {
	t.Helper()
	out, _ := ihmt("doctor", "--json") // other checks may fail on a test machine
	var rep struct {
		Checks []struct{ Name, Status, Finding string } `json:"checks"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("ihmt doctor --json: %v\n%s", err, out)
	}
	for _, c := range rep.Checks {
		if c.Name == "page" {
			return c.Finding
		}
	}
	return "(no page check)"
}

// browser is one headless Chromium with one tab.
type browser struct {
	t   *testing.T
	ctx context.Context
	dir string // screenshots
}

func newBrowser(t *testing.T, ctx context.Context, dir string) *browser {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox cannot start
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		// Without these Chromium reaches out at start, which this network
		// refuses; the page itself makes no request but to itself.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("lang", "en-US"),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1366, 900),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancel := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(cancel)
	b := &browser{t: t, ctx: bctx, dir: dir}
	// The first run starts the browser, on the context without a timeout:
	// a timeout there would stop the whole browser.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return b
}

// do runs steps, failing the test with what was being done.
func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	run(b, what, chromedp.Steps(steps...))
}

// run runs one action and returns its value, failing the test with what
// was being done.
func run[T any](b *browser, what string, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.shot("failed")
		b.t.Fatalf("%s: %v", what, err)
	}
	return v
}

// waitTrue waits until a script's expression is true.
func (b *browser) waitTrue(what, expr string) {
	b.t.Helper()
	run(b, what, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(20*time.Second)))
}

// openLeaf clicks the outline's memory whose title holds words.
func (b *browser) openLeaf(words string) {
	b.t.Helper()
	find := `[...document.querySelectorAll("#outline [data-id]")].find(e => e.textContent.includes(` + jsString(words) + `))`
	b.waitTrue("the outline lists "+words, find+` !== undefined`)
	run(b, "open "+words, chromedp.Evaluate[bool](`(`+find+`.click(), true)`))
}

// shot saves a full-page screenshot as ui-name.png.
func (b *browser) shot(name string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	// From the top, where the sticky header belongs.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(window.scrollTo(0, 0), true)`)); err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	path := filepath.Join(b.dir, "ui-"+name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Errorf("screenshot %s: %v", name, err)
		return
	}
	b.t.Logf("screenshot: %s", path)
}

// jsString quotes s for a script.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
