package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func lines(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	if err := Read(path, func(l []byte) error { out = append(out, string(l)); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAppendReopenAndTornTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.Append([][]byte{[]byte(`{"n":1}`), []byte(`{"n":2}`)}); err != nil {
		t.Fatal(err)
	}
	if err := j.Append([][]byte{[]byte(`{"n":3}`)}); err != nil {
		t.Fatal(err)
	}
	if j.Entries() != 3 {
		t.Fatalf("Entries = %d, want 3", j.Entries())
	}
	j.Close()

	// Simulate a crash in the middle of a write: a partial line at the end.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"n":4,"tor`)
	f.Close()

	j, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if j.Entries() != 3 {
		t.Fatalf("after torn tail Entries = %d, want 3", j.Entries())
	}
	if err := j.Append([][]byte{[]byte(`{"n":5}`)}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	var got []int
	for _, l := range lines(t, path) {
		var e struct{ N int }
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		got = append(got, e.N)
	}
	if fmt.Sprint(got) != "[1 2 3 5]" {
		t.Fatalf("entries = %v, want [1 2 3 5]", got)
	}
	// The chain continues across the reopen and the cut tail.
	if rep, err := Verify(path, nil); err != nil || len(rep.Problems) != 0 || rep.Entries != 4 {
		t.Fatalf("Verify = %+v, %v; want 4 entries, no problems", rep, err)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", st.Mode().Perm())
	}
}

func TestAppendRejectsNewline(t *testing.T) {
	j, err := Open(filepath.Join(t.TempDir(), "log.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for _, bad := range []string{"{\"a\":\n1}", "ab", "[1]", ""} {
		if err := j.Append([][]byte{[]byte(bad)}); err == nil {
			t.Fatalf("Append(%q): want an error", bad)
		}
	}
	if err := j.Append([][]byte{[]byte(`{"a":1}`)}); err != nil || j.Entries() != 1 {
		t.Fatalf("positive control: err %v entries %d", err, j.Entries())
	}
}

func TestLongLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	j, _ := Open(path)
	long := []byte(`{"text":"` + strings.Repeat("x", 300_000) + `"}`)
	if err := j.Append([][]byte{long, []byte(`{"short":1}`)}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	got := lines(t, path)
	if len(got) != 2 || !strings.Contains(got[0], strings.Repeat("x", 300_000)) || !strings.HasPrefix(got[1], `{"short":1,`) {
		t.Fatalf("got %d lines (first %d bytes)", len(got), len(got[0]))
	}
}

func BenchmarkAppendFsync(b *testing.B) {
	j, _ := Open(filepath.Join(b.TempDir(), "log.jsonl"))
	defer j.Close()
	line := []byte(`{"seq":1,"op":"save","id":"0123456789abcdef","text":"I live in Madrid"}`)
	for b.Loop() {
		if err := j.Append([][]byte{line}); err != nil {
			b.Fatal(err)
		}
	}
}

// writeLog appends n entries {"seq":i,"text":"t<i>"} and returns the lines.
func writeLog(t *testing.T, path string, n int) []string {
	t.Helper()
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if err := j.Append([][]byte{fmt.Appendf(nil, `{"seq":%d,"op":"save","text":"t%d"}`, i, i)}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	return lines(t, path)
}

func TestVerifyNamesTheBreak(t *testing.T) {
	cases := []struct {
		name     string
		tamper   func(ls []string) []string
		line     int64
		kind     string
		inDetail string
	}{
		{"one byte edited", func(ls []string) []string {
			ls[3] = strings.Replace(ls[3], `"op":"save"`, `"op":"sav3"`, 1)
			return ls
		}, 4, "changed", "hash"},
		{"entry deleted", func(ls []string) []string {
			return append(ls[:2:2], ls[3:]...)
		}, 3, "removed", "entry 3 is missing"},
		{"two swapped", func(ls []string) []string {
			ls[4], ls[5] = ls[5], ls[4]
			return ls
		}, 5, "reordered", ""},
		{"hash field dropped", func(ls []string) []string {
			var m map[string]any
			json.Unmarshal([]byte(ls[6]), &m)
			delete(m, "hash")
			b, _ := json.Marshal(m)
			ls[6] = string(b)
			return ls
		}, 7, "changed", "no hash"},
		{"hash recomputed after an edit", func(ls []string) []string {
			// A forger who recomputes the edited entry's own hash still
			// breaks the next entry's link.
			var m map[string]any
			json.Unmarshal([]byte(ls[1]), &m)
			m["op"] = "forget"
			delete(m, "hash")
			b, _ := json.Marshal(m)
			h, _ := Hash(b)
			m["hash"] = h
			b, _ = json.Marshal(m)
			ls[1] = string(b)
			return ls
		}, 2, "changed", "re-hashed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "log.jsonl")
			ls := writeLog(t, path, 8)
			// Positive control: the untouched log verifies.
			if rep, err := Verify(path, nil); err != nil || len(rep.Problems) != 0 || rep.Entries != 8 {
				t.Fatalf("untouched: %+v %v", rep, err)
			}
			ls = tc.tamper(ls)
			if err := os.WriteFile(path, []byte(strings.Join(ls, "\n")+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			rep, err := Verify(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Problems) == 0 {
				t.Fatal("tampering not detected")
			}
			p := rep.Problems[0]
			if p.Line != tc.line || p.Kind != tc.kind || !strings.Contains(p.Detail, tc.inDetail) {
				t.Fatalf("first problem = %+v, want line %d kind %s detail ~%q", p, tc.line, tc.kind, tc.inDetail)
			}
		})
	}
}

func TestRewriteKeepsTheChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	writeLog(t, path, 5)
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := j.Rewrite(func(line []byte) ([]byte, error) {
		if !bytes.Contains(line, []byte(`"seq":3,`)) {
			return line, nil
		}
		var m map[string]json.RawMessage
		json.Unmarshal(line, &m)
		delete(m, "text")
		return json.Marshal(m)
	})
	if err != nil || n != 1 {
		t.Fatalf("Rewrite = %d, %v; want 1 line changed", n, err)
	}
	// Appending after a rewrite continues the same chain.
	if err := j.Append([][]byte{[]byte(`{"seq":6}`)}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	ls := lines(t, path)
	if len(ls) != 6 || strings.Contains(ls[2], `"t3"`) || !strings.Contains(ls[3], `"t4"`) {
		t.Fatalf("after rewrite: %q", ls)
	}
	if rep, err := Verify(path, nil); err != nil || len(rep.Problems) != 0 {
		t.Fatalf("Verify after purge-like rewrite = %+v, %v", rep, err)
	}
	// The check callback sees every line and its errors are reported.
	rep, _ := Verify(path, func(line []byte) error {
		if bytes.Contains(line, []byte(`"seq":2,`)) {
			return errors.New("text does not match its checksum")
		}
		return nil
	})
	if len(rep.Problems) != 1 || rep.Problems[0].Line != 2 || rep.Problems[0].Kind != "changed" {
		t.Fatalf("check problems = %+v", rep.Problems)
	}
}

func TestVerifyCountsUnchainedPrefix(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	// Entries written before chaining existed, then chained ones.
	os.WriteFile(path, []byte(`{"seq":1}`+"\n"+`{"seq":2}`+"\n"), 0o600)
	j, _ := Open(path)
	j.Append([][]byte{[]byte(`{"seq":3}`)})
	j.Close()
	rep, err := Verify(path, nil)
	if err != nil || rep.Unchained != 2 || rep.Entries != 3 || len(rep.Problems) != 0 {
		t.Fatalf("Verify = %+v, %v", rep, err)
	}
}

// TestCrashDamageIsNotTampering: a garbage line left by a crash mid-batch is
// reported as damage, the chain continues past it on the next append, and a
// real edit after it is still named.
func TestCrashDamageIsNotTampering(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	writeLog(t, path, 3)
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("\x00\x00garbage\x00\n")
	f.Close()
	j, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	j.Append([][]byte{[]byte(`{"seq":4}`), []byte(`{"seq":5}`)})
	j.Close()
	rep, err := Verify(path, nil)
	if err != nil || len(rep.Problems) != 0 || len(rep.Damaged) != 1 || rep.Damaged[0] != 4 {
		t.Fatalf("Verify = %+v, %v; want line 4 damaged and no problems", rep, err)
	}
	// Line 5 is the entry that names the damage; reopening adds no other.
	ls := lines(t, path)
	if !strings.Contains(ls[4], `"op":"recovered"`) || !strings.Contains(ls[4], `"damaged":[4]`) {
		t.Fatalf("no recovered entry: %q", ls[4])
	}
	j, _ = Open(path)
	j.Close()
	if n := len(lines(t, path)); n != 7 {
		t.Fatalf("reopening added entries: %d lines", n)
	}
	// Positive controls: an edit is still an edit, and an unreadable line
	// that no recovery names is one too.
	edited := append([]string(nil), ls...)
	edited[6] = strings.Replace(edited[6], `"seq":5`, `"seq":6`, 1)
	os.WriteFile(path, []byte(strings.Join(edited, "\n")+"\n"), 0o600)
	if rep, _ := Verify(path, nil); len(rep.Problems) != 1 || rep.Problems[0].Line != 7 {
		t.Fatalf("edit after damage: %+v", rep)
	}
	broken := append([]string(nil), ls...)
	broken[1] = "x" + broken[1][1:]
	os.WriteFile(path, []byte(strings.Join(broken, "\n")+"\n"), 0o600)
	if rep, _ := Verify(path, nil); len(rep.Problems) == 0 || rep.Problems[0].Line != 2 {
		t.Fatalf("a one-byte edit that makes a line unreadable: %+v", rep)
	}
}
