package ingest

import (
	"cmp"
	"strings"
	"testing"
	"time"
)

// TestNarrativeHardBoundaries: scene breaks, chapter lines and headings
// are never packed across, however small the pieces; paragraphs between
// them are packed.
func TestNarrativeHardBoundaries(t *testing.T) {
	text := "Chapter 1\n\nIt was a bright cold day. The clocks struck thirteen.\n\n\"Hello,\" she said.\n\n" +
		"***\n\nThe second scene. It is short.\n\n" +
		"---\n\nA third scene after a rule.\n\n" +
		"Capítulo 2: La huida\n\nHuyeron de noche.\n" +
		"# A heading without a blank line before it\n\nFinal paragraph.\n\n" +
		"CHAPTER IV\nLast words.\n"
	det, blocks := Split("novel.txt", text, Options{Type: TypeNarrative})
	checkInvariant(t, text, det, blocks, DefaultMaxBytes)
	want := []struct{ starts, title string }{
		{"Chapter 1\n\nIt was", "Chapter 1"},
		{"The second scene.", ""},
		{"A third scene", ""},
		{"Capítulo 2: La huida\n\nHuyeron", "Capítulo 2: La huida"},
		{"# A heading", "A heading without a blank line before it"},
		{"CHAPTER IV\nLast words.", "CHAPTER IV"},
	}
	if len(blocks) != len(want) {
		t.Fatalf("%d blocks, want %d: %q", len(blocks), len(want), texts(blocks))
	}
	for i, w := range want {
		if !strings.HasPrefix(blocks[i].Text, w.starts) {
			t.Errorf("block %d = %q, want it to start with %q", i, blocks[i].Text, w.starts)
		}
		if w.title != "" && blocks[i].Title != w.title {
			t.Errorf("block %d title %q, want %q", i, blocks[i].Title, w.title)
		}
	}
	// A scene break closes the scene before it.
	if !strings.HasSuffix(blocks[0].Text, "***\n\n") {
		t.Errorf("the break should end the first scene: %q", blocks[0].Text)
	}
}

// TestNarrativeOversizedParagraph: only a paragraph over the limit is
// split, between sentences, and its pieces are not oversized unless one
// sentence is itself too big.
func TestNarrativeOversizedParagraph(t *testing.T) {
	sentence := "The road ran on past the mill and Dr. Ruiz followed it, counting stones. "
	para := strings.Repeat(sentence, 30) // ~2.2 KB
	giant := strings.Repeat("word ", 400) + "end."
	text := "Short opening paragraph.\n\n" + para + "\n\n" + giant + "\n\nClosing paragraph.\n"
	const max = 500
	det, blocks := Split("", text, Options{Type: TypeNarrative, MaxBytes: max})
	checkInvariant(t, text, det, blocks, max)
	over := 0
	for _, b := range blocks {
		if b.Oversized {
			over++
			if strings.TrimSpace(b.Text) != giant {
				t.Errorf("oversized block is not the giant sentence: %q", clip(b.Text, 80))
			}
		}
		if strings.Contains(b.Text, "Dr. ") && !strings.Contains(b.Text, "Dr. Ruiz") {
			t.Errorf("cut after an abbreviation: %q", b.Text)
		}
	}
	if over != 1 {
		t.Errorf("%d oversized blocks, want 1", over)
	}
	for i := 0; i < strings.Count(para, sentence); i++ {
		if blockHolding(blocks, sentence) < 0 {
			t.Fatal("a sentence was cut")
		}
	}
	// The same paragraph as generic text is a logical block: stored whole.
	det, blocks = Split("", text, Options{Type: TypeGeneric, MaxBytes: max})
	checkInvariant(t, text, det, blocks, max)
	if blockHolding(blocks, para) < 0 {
		t.Errorf("generic split the paragraph")
	}
}

func TestProseFencesAndHeadings(t *testing.T) {
	fence := "```go\nfunc f() {\n\n\n\treturn\n}\n# not a heading\n```\n"
	text := "# Notes\n\nIntro.\n\n" + fence + "\nSetext heading\n--------------\n\nBody.\n\n## Trailing heading\n"
	for _, typ := range []Type{TypeNarrative, TypeGeneric} {
		det, blocks := Split("", text, Options{Type: typ, MaxBytes: 20})
		checkInvariant(t, text, det, blocks, 20)
		if blockHolding(blocks, fence) < 0 {
			t.Errorf("%s: fenced block cut: %q", typ, texts(blocks))
		}
		if blockHolding(blocks, "Setext heading\n--------------\n\nBody.") < 0 {
			t.Errorf("%s: setext heading separated from its body: %q", typ, texts(blocks))
		}
		if blockHolding(blocks, "# Notes\n\nIntro.") < 0 {
			t.Errorf("%s: heading separated from its paragraph: %q", typ, texts(blocks))
		}
	}
}

func TestTemporalDatesAndBoundaries(t *testing.T) {
	day := func(m time.Month, d int) time.Time { return time.Date(2023, m, d, 0, 0, 0, 0, time.UTC) }
	entries := []struct {
		text string
		date time.Time
	}{
		{"2023-05-08 Went hiking with Ana.\nCame back late.\n\n", day(5, 8)},
		{"09/05/2023 Rest day.\n\n", day(5, 9)},
		{"10 May, 2023 — we talked about the move.\n", day(5, 10)},
		{"May 11th 2023 was sunny.\n", day(5, 11)},
		{"1:56 pm on 12 May, 2023\nCaroline: Hey Mel!\nMelanie: Hi!\n\n", day(5, 12).Add(13*time.Hour + 56*time.Minute)},
		{"13 de mayo de 2023: fuimos al mercado.\n\n", day(5, 13)},
		{"## Sunday, May 14, 2023\n\nLong day.\n", day(5, 14)},
	}
	var b strings.Builder
	b.WriteString("# Journal\n\nKept since spring.\n\n")
	for _, e := range entries {
		b.WriteString(e.text)
	}
	text := b.String()
	det, blocks := Split("journal.md", text, Options{})
	if det.Type != TypeTemporal {
		t.Fatalf("detected %+v", det)
	}
	checkInvariant(t, text, det, blocks, DefaultMaxBytes)
	if len(blocks) != len(entries)+1 {
		t.Fatalf("%d blocks, want %d (one per day and the preamble): %q", len(blocks), len(entries)+1, texts(blocks))
	}
	if !blocks[0].ValidFrom.IsZero() || !strings.HasPrefix(blocks[0].Text, "# Journal") {
		t.Errorf("preamble block %q dated %v", blocks[0].Text, blocks[0].ValidFrom)
	}
	for i, e := range entries {
		b := blocks[i+1]
		if b.Text != e.text || !b.ValidFrom.Equal(e.date) {
			t.Errorf("entry %d = %q @ %v, want %q @ %v", i, b.Text, b.ValidFrom, e.text, e.date)
		}
	}

	// Same-day entries pack; an oversized entry is stored whole.
	same := "2023-05-08 09:00 first\n2023-05-08 10:00 second\n8 May 2023 third\n2023-05-09 next day\n"
	det, blocks = Split("", same, Options{Type: TypeTemporal})
	checkInvariant(t, same, det, blocks, DefaultMaxBytes)
	if len(blocks) != 2 || !blocks[0].ValidFrom.Equal(day(5, 8).Add(9*time.Hour)) || !blocks[1].ValidFrom.Equal(day(5, 9)) {
		t.Errorf("same-day packing: %q", texts(blocks))
	}
	long := "2023-05-08 " + strings.Repeat("a long entry line\n\n", 300) + "2023-05-09 short\n"
	det, blocks = Split("", long, Options{Type: TypeTemporal})
	checkInvariant(t, long, det, blocks, DefaultMaxBytes)
	if len(blocks) != 2 || !blocks[0].Oversized {
		t.Errorf("oversized entry: %d blocks", len(blocks))
	}
}

func TestClinicalSections(t *testing.T) {
	text := "Paciente: Juan Pérez, 54 años.\n\n" +
		"Visita 12/03/2024\n" +
		"Motivo de consulta: dolor torácico.\n" +
		"Exploración física:\nTA 140/90, FC 88.\n\n" +
		"Diagnóstico: HTA esencial.\n" +
		"Tratamiento:\n- Enalapril 10 mg/24h\n- Dieta hiposódica\n\n" +
		"2024-04-20 Control\n" +
		"Evolución: mejoría.\n" +
		"Plan:\n- mantener tratamiento\n- control en 3 meses\n"
	blocks := splitAs(t, "", text, 60, TypeClinical, "medicine.clinical")
	checkWhole(t, blocks,
		"Visita 12/03/2024\nMotivo de consulta: dolor torácico.\n",
		"Exploración física:\nTA 140/90, FC 88.\n",
		"Tratamiento:\n- Enalapril 10 mg/24h\n- Dieta hiposódica\n",
		"Plan:\n- mantener tratamiento\n- control en 3 meses\n",
	)
	for _, b := range blocks {
		switch {
		case strings.Contains(b.Text, "Paciente:"):
			if !b.ValidFrom.IsZero() {
				t.Errorf("preamble dated %v", b.ValidFrom)
			}
		case strings.Contains(b.Text, "Enalapril"), strings.Contains(b.Text, "torácico"):
			if !b.ValidFrom.Equal(time.Date(2024, 3, 12, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("%q dated %v", b.Text, b.ValidFrom)
			}
		case strings.Contains(b.Text, "Plan:"):
			if !b.ValidFrom.Equal(time.Date(2024, 4, 20, 0, 0, 0, 0, time.UTC)) {
				t.Errorf("%q dated %v", b.Text, b.ValidFrom)
			}
		}
		if strings.Contains(b.Text, "Dieta") && strings.Contains(b.Text, "2024-04-20") {
			t.Errorf("two visits packed together: %q", b.Text)
		}
	}
	// With room to spare each visit is one block.
	_, blocks = Split("", text, Options{Type: TypeClinical})
	if len(blocks) != 3 {
		t.Errorf("%d blocks, want preamble + 2 visits: %q", len(blocks), texts(blocks))
	}
}

func TestProcessHeadingWithSteps(t *testing.T) {
	cookbook := "# Recipes\n\n## Pancakes\n\n### Ingredients\n- 2 eggs\n- 200 g flour\n\n### Steps\n1. Mix.\n\n2. Cook on a hot pan.\n\n" +
		"## Waffles\n\nIngredients:\n- 1 egg\n\nSteps:\n1. Preheat the waffle iron.\n2. Bake.\n"
	blocks := splitAs(t, "recipes.md", cookbook, 0, TypeProcess, "process.cooking")
	if len(blocks) != 2 || blocks[0].Title != "Pancakes — Ingredients" || blocks[1].Title != "Waffles" {
		t.Fatalf("two recipes, never packed together: %q %q", titles(blocks), texts(blocks))
	}
	// Under a tiny limit each heading keeps its steps, stored whole.
	det, blocks := Split("recipes.md", cookbook, Options{MaxBytes: 10})
	checkInvariant(t, cookbook, det, blocks, 10)
	checkWhole(t, blocks,
		"### Steps\n1. Mix.\n\n2. Cook on a hot pan.\n",
		"## Pancakes\n\n### Ingredients\n- 2 eggs\n- 200 g flour\n",
		"## Waffles\n\nIngredients:\n- 1 egg\n\nSteps:\n1. Preheat the waffle iron.\n2. Bake.\n",
	)

	// Without markdown, label lines open sections.
	runbook := "Restart the API after a bad deploy.\n\nPREREQUISITES\n- kubectl access\n- on-call role\n\n" +
		"Steps:\n1. kubectl rollout undo deploy/api\n2. Verify the dashboard.\n\n3. Tell the incident channel.\n\n" +
		"**Rollback**\n$ kubectl rollout undo deploy/api\n"
	blocks = splitAs(t, "", runbook, 10, TypeProcess, "process.runbook")
	checkWhole(t, blocks,
		"PREREQUISITES\n- kubectl access\n- on-call role\n",
		"Steps:\n1. kubectl rollout undo deploy/api\n2. Verify the dashboard.\n\n3. Tell the incident channel.\n",
		"**Rollback**\n$ kubectl rollout undo deploy/api\n",
	)
}

func TestItemLevel(t *testing.T) {
	tests := []struct {
		levels []int
		want   int
	}{
		{nil, 0},
		{[]int{1, 2, 3, 3, 2, 3}, 2}, // cookbook: recipes are the items
		{[]int{1, 2, 2}, 1},          // one recipe with its parts
		{[]int{2, 2, 2}, 2},          // sibling procedures
		{[]int{1}, 1},
		{[]int{1, 1, 2}, 1},
	}
	for _, tt := range tests {
		if got := itemLevel(tt.levels); got != tt.want {
			t.Errorf("itemLevel(%v) = %d, want %d", tt.levels, got, tt.want)
		}
	}
}

// splitAs splits text under max (0: the default) and checks it was
// detected as typ in domain (failing t now if not) and kept the invariant.
func splitAs(t testing.TB, name, text string, max int, typ Type, domain string) []Block {
	t.Helper()
	det, blocks := Split(name, text, Options{MaxBytes: max})
	if det.Type != typ || det.Domain != domain {
		t.Fatalf("detected %+v, want %s %s", det, typ, domain)
	}
	checkInvariant(t, text, det, blocks, cmp.Or(max, DefaultMaxBytes))
	return blocks
}

// checkWhole fails t for each of wholes that no single block holds.
func checkWhole(t testing.TB, blocks []Block, wholes ...string) {
	t.Helper()
	for _, whole := range wholes {
		if blockHolding(blocks, whole) < 0 {
			t.Errorf("cut: %q in %q", whole, texts(blocks))
		}
	}
}
