package leaf

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
	"unsafe"
)

// headers are headers as saves, ingests, corrections and reviews write
// them: every field but the tombstone, which the fast path leaves to
// encoding/json.
func headers() []Header {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	full := sample("text").Header
	full.OriginProject = "github.com/org/other"
	full.Title = "parseHTTPRequest — «the» parser"
	full.Source = &Source{Name: "/home/u/src/main.go", Digest: "sha256:ab", Part: 3, Parts: 12, Type: "code", Context: "type Server struct {", Oversized: true}
	full.Tags = []string{"db", "ops", "db"}
	full.ReviewNote = "held: corrects a verified memory"
	full.Corrects = []Link{{ID: "0123456789abcdef", At: at}}
	full.CorrectedBy = []Link{{ID: "fedcba9876543210", At: at.In(time.FixedZone("", 2*3600))}, {ID: "00000000000000ff", At: at}}
	minimal := Header{ID: "0123456789abcdef", Scope: ScopeGlobal, Trust: TrustPending, Status: StatusActive, Checksum: Checksum("")}
	zeroPart := full
	zeroPart.Source = &Source{Digest: "sha256:cd", Part: 0, Parts: 1}
	return []Header{full, minimal, zeroPart, sample("another").Header}
}

func TestDecodeHeaderAgreesWithJSON(t *testing.T) {
	for i, h := range headers() {
		for _, indent := range []bool{true, false} {
			data, _ := json.Marshal(h)
			if indent {
				data, _ = json.MarshalIndent(h, "", "  ")
			}
			var fast, slow Header
			if !decodeHeader(data, &fast) {
				t.Fatalf("header %d (indent %v): the fast path gave up on what Encode writes:\n%s", i, indent, data)
			}
			if err := json.Unmarshal(data, &slow); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("header %d: fast path decoded\n%+v\nencoding/json\n%+v", i, fast, slow)
			}
		}
	}
}

// TestDecodeHeaderGivesUp: whatever the fast path does not handle exactly
// as encoding/json does is left to it.
func TestDecodeHeaderGivesUp(t *testing.T) {
	for _, data := range []string{
		`{"id": "a\u0062"}`,                  // an escape
		`{"id": "a", "id": "b"}`,             // a repeated key
		`{"ID": "a"}`,                        // json matches keys regardless of case
		`{"future": 1}`,                      // an unknown key
		`{"tags": null}`,                     // null
		`{"tombstone": {"reason": "x"}}`,     // left to json
		`{"source": {"part": 1.0}}`,          // not a plain integer
		`{"source": {"part": -1}}`,           // negative
		`{"source": {"part": 01}}`,           // not JSON
		`{"source": {"part": 1, "part": 2}}`, // repeated inside
		`{"agent": {"name": "a", "x": "y"}}`, // unknown inside
		"{\"id\": \"a\xffb\"}",               // invalid UTF-8 (json replaces it)
		"{\"id\": \"a\tb\"}",                 // a raw control character
		`{"id": "a"} x`,                      // trailing data
		`{"id": "a",}`,                       // not JSON
		`{"valid_from": "yesterday"}`,        // not a date
		`["id"]`,
		``,
	} {
		var h Header
		if decodeHeader([]byte(data), &h) {
			t.Errorf("fast path accepted %q", data)
		}
	}
}

func TestParseSharesRepeatingStrings(t *testing.T) {
	a, _ := Encode(sample("one"))
	b, _ := Encode(sample("two"))
	la, err := Parse(a)
	if err != nil {
		t.Fatal(err)
	}
	lb, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	same := func(x, y string) bool { return unsafe.StringData(x) == unsafe.StringData(y) }
	if !same(la.Project, lb.Project) || !same(la.Agent.Name, lb.Agent.Name) || !same(la.Trust, lb.Trust) {
		t.Error("two leaves of one project keep two copies of its name, agent or trust")
	}
	if same(la.ID, lb.ID) || la.Text == lb.Text {
		t.Fatal("positive control: different leaves")
	}
}

// FuzzDecodeHeader: when the fast path decodes a header, encoding/json
// must decode the same bytes to the same header.
func FuzzDecodeHeader(f *testing.F) {
	for _, h := range headers() {
		data, _ := json.MarshalIndent(h, "", "  ")
		f.Add(data)
	}
	f.Add([]byte(`{"id":"x","tags":[],"corrects":[]}`))
	f.Add([]byte(`{"source":{"part":7,"oversized":false}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast Header
		if !decodeHeader(data, &fast) {
			return
		}
		var slow Header
		if err := json.Unmarshal(data, &slow); err != nil {
			t.Fatalf("fast path accepted what encoding/json rejects (%v): %q", err, data)
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Fatalf("%q: fast path %+v, encoding/json %+v", data, fast, slow)
		}
	})
}
