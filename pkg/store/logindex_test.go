package store

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// logHeadCases are log lines as the store writes them and as damage,
// editing or a future version might leave them.
var logHeadCases = []string{
	`{"seq":1,"time":"2026-11-29T20:00:57.857503775Z","op":"save","id":"7ff125440e58252b","agent":{"name":"a","version":"1"},"leaf":{"id":"7ff125440e58252b","tags":["x","y"]},"text":"say \"hi\" \\ {not} [an] object, \u00e9","prev":"","hash":"15"}`,
	`{"seq":2,"op":"read_all","agent":{"name":"a","version":"1"},"detail":"search x"}`,
	`{"op":"forget","leaves":[{"id":"aa","tags":[]},{"id":"bb"}],"id":"cc"}`,
	`{"op":"save","id":"aa","op":"import"}`, // a later member wins
	`{"op":"save","id":"aa","id":null}`,     // null leaves it as it was
	`{"OP":"save","Id":"aa"}`,               // keys match without case
	`{"op":"save","ıd":"aa"}`,               // ı folds to I: encoding/json decides
	`{"op":"save","\u0069d":"aa"}`,          // an escaped key
	`{"op":"sa\u0076e","id":"a\"a"}`,        // escaped values
	`{"op":"säve","id":"aa"}`,               // a non-ASCII value
	`{"op":5,"id":"aa"}`,                    // a number where a string goes
	`{"op":{"x":1},"id":"aa"}`,              // an object where a string goes
	`{"op":"save","id":"aa","n":-1.5e3,"t":true,"f":false,"z":null,"e":{},"a":[]}`,
	` { "op" : "save" , "id" : "aa" } `,
	`{}`,
	`null`,
	`[1,2,3]`,
	`"save"`,
	`5`,
	`{"op":"save","id":"aa"`,
	`{"op":"save","id":"aa"}}`,
	`{"op":"save","id":"aa","text":"x` + "\x00" + `"}`,
	`{"op":"save","id":"aa","text":"\\\\"}`,
	`{"op":"save","id":"aa","text":"\\\"","x":"y"}`,
	`{"op":"save","id":"aa","text":"` + "\xff" + `"}`,
	`{"op":"save","id":"` + "\xff" + `"}`,
	``,
	`garbage`,
}

// TestLogHead checks that logHead reads every line exactly as
// json.Unmarshal does, error included.
func TestLogHead(t *testing.T) {
	for _, line := range logHeadCases {
		checkLogHead(t, []byte(line))
	}
}

func FuzzLogHead(f *testing.F) {
	for _, line := range logHeadCases {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkLogHead(t, line)
	})
}

func checkLogHead(t *testing.T, line []byte) {
	t.Helper()
	op, id, err := logHead(line)
	var want logHeadJSON
	wantErr := json.Unmarshal(line, &want)
	if wantErr != nil {
		if err == nil || err.Error() != wantErr.Error() {
			t.Errorf("logHead(%q): error %v, want %v", line, err, wantErr)
		}
		return
	}
	if err != nil || op != want.Op || string(id) != want.ID {
		t.Errorf("logHead(%q) = %q, %q, %v; want %q, %q", line, op, id, err, want.Op, want.ID)
	}
}

// TestLogIndexParts checks that reading a log in parts finds every line,
// in order, whatever the parts' bounds cut through.
func TestLogIndexParts(t *testing.T) {
	path := filepath.Join(t.TempDir(), logName)
	var b bytes.Buffer
	var want []string
	for i := range 40000 {
		id := strings.Repeat(string(rune('a'+i%26)), 1+i%40)
		want = append(want, id)
		b.WriteString(`{"op":"save","id":"` + id + `","text":"` + strings.Repeat("x", i%97) + `"}` + "\n")
	}
	b.WriteString(`{"op":"save","id":"torn`) // an unterminated tail is not read
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	lg, err := openLogIndex(path)
	defer lg.close()
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.lines) != len(want) {
		t.Fatalf("read %d lines, want %d", len(lg.lines), len(want))
	}
	for i, ln := range lg.lines {
		if ln.ID != want[i] || ln.err != nil {
			t.Fatalf("line %d: id %q (err %v), want %q", i+1, ln.ID, ln.err, want[i])
		}
		line, err := lg.line(ln, nil)
		if err != nil || !bytes.HasSuffix(line, []byte(`"}`)) || !bytes.HasPrefix(line, []byte(`{"op"`)) {
			t.Fatalf("line %d read again as %q, %v", i+1, line, err)
		}
	}
	if lg.end != int64(b.Len()-len(`{"op":"save","id":"torn`)) {
		t.Errorf("end %d, want %d", lg.end, b.Len()-len(`{"op":"save","id":"torn`))
	}
	// Lines appended later are read by readMore.
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("\n"+`{"op":"recovered"}`+"\n"), lg.end+int64(len(`{"op":"save","id":"torn`))); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := lg.readMore(); err != nil {
		t.Fatal(err)
	}
	if n := len(lg.lines); n != len(want)+2 || lg.lines[n-2].err == nil || lg.lines[n-1].Op != "recovered" {
		t.Errorf("after readMore: %d lines, the last two %+v %+v", n, lg.lines[n-2], lg.lines[n-1])
	}
}
