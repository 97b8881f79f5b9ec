package gitsync

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ihmt-dev/ihmt/pkg/journal"
	"github.com/ihmt-dev/ihmt/pkg/leaf"
	"github.com/ihmt-dev/ihmt/pkg/store"
	"github.com/ihmt-dev/ihmt/pkg/testenv/shared"
)

// machine is one store with its sync, as the daemon of one machine holds
// them.
type machine struct {
	name string
	dir  string
	st   *store.Store
	sy   *Syncer
}

// bareRemote makes an empty bare repository on local disk: the remote
// every machine of a test syncs with.
func bareRemote(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "memory.git")
	if out, err := exec.Command("git", "init", "-q", "--bare", "-b", branch, dir).CombinedOutput(); err != nil {
		t.Fatalf("git init --bare: %v: %s", err, out)
	}
	return dir
}

// openMachine opens the store in dir and sets up its sync with remote as
// device name (init only when it is not set up yet).
func openMachine(t testing.TB, dir, remote, name string) *machine {
	t.Helper()
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := &machine{name: name, dir: dir, st: st, sy: New(st, dir)}
	t.Cleanup(func() { m.st.Close() })
	if !m.sy.Enabled() {
		if _, err := m.sy.Init(context.Background(), remote, name); err != nil {
			t.Fatalf("%s: init: %v", name, err)
		}
	}
	return m
}

func newMachine(t testing.TB, remote, name string) *machine {
	return openMachine(t, filepath.Join(t.TempDir(), name), remote, name)
}

// reopen closes the machine's store and opens it again, as a restart of
// its daemon would.
func (m *machine) reopen(t testing.TB) {
	t.Helper()
	if err := m.st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(m.dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m.st, m.sy = st, New(st, m.dir)
	t.Cleanup(func() { st.Close() })
}

func (m *machine) sync(t testing.TB) Report {
	t.Helper()
	rep, err := m.sy.Sync(context.Background())
	if err != nil {
		t.Fatalf("%s: sync: %v", m.name, err)
	}
	return rep
}

var agent = store.Caller{Agent: leaf.Agent{Name: "claude-code"}, Session: "s1"}
var person = store.Caller{Agent: leaf.Agent{Name: "ihmt"}, Session: "cli", Person: true}

func (m *machine) save(t testing.TB, c store.Caller, text, date string) leaf.Leaf {
	t.Helper()
	res, err := m.st.Save(context.Background(), store.SaveInput{Caller: c, Content: text, Date: date})
	if err != nil {
		t.Fatalf("%s: save: %v", m.name, err)
	}
	if res.Status == store.Refused {
		t.Fatalf("%s: save refused: %s", m.name, res.Message)
	}
	return res.Leaf
}

// records is every version the store holds, by id.
func (m *machine) records(t testing.TB) map[string]record {
	t.Helper()
	out := map[string]record{}
	for offset := 0; ; {
		recs, next, err := m.st.SyncRecords(offset)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			rec, err := decodeRecord([]byte(r))
			if err != nil {
				t.Fatal(err)
			}
			out[rec.ID] = rec
		}
		if next == 0 {
			return out
		}
		offset = next
	}
}

// sameRecords fails unless every machine holds exactly the same memories,
// header for header.
func sameRecords(t testing.TB, ms ...*machine) map[string]record {
	t.Helper()
	want := ms[0].records(t)
	for _, m := range ms[1:] {
		got := m.records(t)
		if len(got) != len(want) {
			t.Fatalf("%s holds %d memories, %s holds %d", ms[0].name, len(want), m.name, len(got))
		}
		for id, w := range want {
			g, ok := got[id]
			if !ok {
				t.Fatalf("%s lacks memory %s that %s holds", m.name, id, ms[0].name)
			}
			wj, _ := json.Marshal(w)
			gj, _ := json.Marshal(g)
			if string(wj) != string(gj) {
				t.Fatalf("memory %s differs:\n%s: %s\n%s: %s", id, ms[0].name, wj, m.name, gj)
			}
		}
	}
	return want
}

// devsetItem is one line of the dev set: a memory or a question.
type devsetItem struct {
	ID      string `json:"id"`
	Date    string `json:"date"`
	Project string `json:"project"`
	Agent   string `json:"agent"`
	Text    string `json:"text"`
	QID     string `json:"qid"`
	Query   string `json:"query"`
}

// devset reads the dev set from ../shared beside the checkout (skipped on
// a fresh clone alone, required under CI: pkg/testenv/shared).
func devset(t testing.TB) (mems, qs []devsetItem) {
	t.Helper()
	f, err := os.Open(filepath.Join(shared.Data(t), "devset", "devset.jsonl"))
	if err != nil {
		t.Fatalf("the dev set: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var it devsetItem
		if err := json.Unmarshal(sc.Bytes(), &it); err != nil {
			t.Fatal(err)
		}
		if it.QID != "" {
			qs = append(qs, it)
		} else {
			mems = append(mems, it)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return mems, qs
}

func devsetCaller(project, agentName string) store.Caller {
	c := store.Caller{Agent: leaf.Agent{Name: agentName}, Session: "devset"}
	if project != "" {
		c.Project = "github.com/devset/" + project
	}
	return c
}

// answer is what a search answers, in a form to compare across stores.
func answer(t testing.TB, st *store.Store, q devsetItem) string {
	t.Helper()
	res, err := st.Search(store.SearchInput{Caller: devsetCaller(q.Project, "claude-code"), Query: q.Query})
	if err != nil {
		t.Fatalf("search %q: %v", q.Query, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d", res.Verdict)
	for _, h := range res.Hits {
		b.WriteString(" " + h.Leaf.ID)
		if !h.Current {
			b.WriteString("(old)")
		}
	}
	return b.String()
}

// workFiles reads every file of a work tree but .git, by path.
func workFiles(t testing.TB, tree string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(tree, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(tree, p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sortedIDs(m map[string]record) []string {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func readJournalLines(path string, fn func(publication)) error {
	return journal.Read(path, func(line []byte) error {
		var p publication
		if json.Unmarshal(line, &p) == nil {
			fn(p)
		}
		return nil
	})
}

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
