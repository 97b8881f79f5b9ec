package ui_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/daemon/ui"
	"github.com/ihmt-dev/ihmt/pkg/testenv"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// page is a served page as a test reaches it.
type page struct {
	origin string // http://127.0.0.1:PORT
	port   int
	token  string
	cookie *http.Cookie
}

// noRedirect is an HTTP client that shows redirects instead of following.
var noRedirect = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// servePage asks the daemon for the page as the person and trades the
// token for the cookie, as a browser's first load does.
func servePage(t *testing.T, ctx context.Context, w *world) page {
	t.Helper()
	r, err := w.person.ServePage(ctx, &ihmtv1.ServeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(r.GetUrl())
	if err != nil || u.Hostname() != "127.0.0.1" || u.Query().Get("token") == "" {
		t.Fatalf("ServePage url = %q (%v): want http://127.0.0.1:PORT/?token=…", r.GetUrl(), err)
	}
	p := page{origin: "http://" + u.Host, port: int(r.GetPort()), token: u.Query().Get("token")}
	resp, err := noRedirect.Get(r.GetUrl())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == "ihmt_ui_"+strconv.Itoa(p.port) {
			p.cookie = c
		}
	}
	if resp.StatusCode != http.StatusSeeOther || p.cookie == nil || !p.cookie.HttpOnly || p.cookie.SameSite != http.SameSiteStrictMode || p.cookie.Value != p.token {
		t.Fatalf("first load: %s, cookies %v: want a redirect setting an HttpOnly SameSite=Strict cookie", resp.Status, resp.Cookies())
	}
	return p
}

// request is one HTTP request to the page; the zero fields are a browser's
// own request from the page.
type request struct {
	method, path, body string
	host, origin       string // "" = the page's own; "-" = none
	contentType        string // "" = application/json
	fetchSite          string // Sec-Fetch-Site, "" = not sent
	noCookie           bool
	cookie             string // a cookie value instead of the token
}

func (p page) do(t *testing.T, r request) (int, http.Header, []byte) {
	t.Helper()
	if r.method == "" {
		r.method = http.MethodPost
	}
	req, err := http.NewRequest(r.method, p.origin+r.path, strings.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	if r.host != "" {
		req.Host = r.host
	}
	switch r.origin {
	case "":
		if r.method != http.MethodGet {
			req.Header.Set("Origin", p.origin)
		}
	case "-":
	default:
		req.Header.Set("Origin", r.origin)
	}
	if r.method == http.MethodPost {
		ct := r.contentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	if r.fetchSite != "" {
		req.Header.Set("Sec-Fetch-Site", r.fetchSite)
	}
	switch {
	case r.cookie != "":
		req.AddCookie(&http.Cookie{Name: p.cookie.Name, Value: r.cookie})
	case !r.noCookie:
		req.AddCookie(p.cookie)
	}
	resp, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, body
}

// call makes an API call as the page does and decodes the answer.
func (p page) call(t *testing.T, method string, body any, out any) int {
	t.Helper()
	b, _ := json.Marshal(body)
	code, _, resp := p.do(t, request{path: "/api/" + method, body: string(b)})
	if out != nil && code == http.StatusOK {
		if err := json.Unmarshal(resp, out); err != nil {
			t.Fatalf("%s: %v in %s", method, err, resp)
		}
	}
	if code != http.StatusOK {
		t.Logf("%s %s → %d %s", method, b, code, resp)
	}
	return code
}

// endpoints are every request the page answers, each with a request that
// succeeds (reads) or reaches the daemon and is refused there (writes on
// an unknown id, which change nothing).
func endpoints(ids seeded) []struct {
	name, method, path, body string
	read                     bool
} {
	madrid := ids[textMadrid]
	const unknown = "0000000000000000"
	return []struct {
		name, method, path, body string
		read                     bool
	}{
		{"index", "GET", "/", "", true},
		{"script", "GET", "/static/app.js", "", true},
		{"words", "GET", "/static/i18n.js", "", true},
		{"style", "GET", "/static/style.css", "", true},
		{"icon", "GET", "/static/icon.svg", "", true},
		{"Search", "POST", "/api/Search", `{"query":"where do I live"}`, true},
		{"Get", "POST", "/api/Get", `{"id":"` + madrid + `"}`, true},
		{"Stats", "POST", "/api/Stats", `{}`, true},
		{"Tree", "POST", "/api/Tree", `{"depth":0}`, true},
		{"Facts", "POST", "/api/Facts", `{}`, true},
		{"Timeline", "POST", "/api/Timeline", `{"subject":"user","attribute":"lives_in"}`, true},
		{"Conflicts", "POST", "/api/Conflicts", `{}`, true},
		{"Log", "POST", "/api/Log", `{"limit":5}`, true},
		{"VerifyAudit", "POST", "/api/VerifyAudit", `{}`, true},
		{"ListReview", "POST", "/api/ListReview", `{}`, true},
		{"Status", "POST", "/api/Status", `{}`, true},
		{"MemoryLog", "POST", "/api/MemoryLog", `{"id":"` + madrid + `"}`, true},
		{"Review", "POST", "/api/Review", `{"id":"` + unknown + `","decision":"REVIEW_DECISION_APPROVE"}`, false},
		{"MarkOutdated", "POST", "/api/MarkOutdated", `{"old_id":"` + unknown + `","new_id":"` + madrid + `"}`, false},
		{"Unlink", "POST", "/api/Unlink", `{"old_id":"` + unknown + `","new_id":"` + madrid + `"}`, false},
		{"Forget", "POST", "/api/Forget", `{"id":"` + unknown + `","reason":"test"}`, false},
		{"Restore", "POST", "/api/Restore", `{"id":"` + unknown + `"}`, false},
		{"Purge", "POST", "/api/Purge", `{"id":"` + unknown + `"}`, false},
	}
}

// TestEveryEndpointGuarded: every request the page answers needs the token,
// the page's own Host and Origin; a request that has them reaches the page
// (the positive control of each case).
func TestEveryEndpointGuarded(t *testing.T) {
	ctx := testenv.Context(t)
	w := startDaemon(t, 0)
	ids := seed(t, ctx, w.sock)
	p := servePage(t, ctx, w)

	// Every API method is in the table, and every one in the table is served.
	var listed []string
	for _, e := range endpoints(ids) {
		if strings.HasPrefix(e.path, "/api/") {
			listed = append(listed, e.name)
		}
	}
	slices.Sort(listed)
	if !slices.Equal(listed, ui.Methods()) {
		t.Fatalf("the table tests %v, the page serves %v", listed, ui.Methods())
	}

	refusals := []struct {
		name string
		mod  func(*request)
		want int
	}{
		{"no cookie", func(r *request) { r.noCookie = true }, http.StatusUnauthorized},
		{"wrong cookie", func(r *request) { r.cookie = strings.Repeat("0", 64) }, http.StatusUnauthorized},
		{"empty cookie", func(r *request) { r.cookie = "x" }, http.StatusUnauthorized},
		{"rebinding host", func(r *request) { r.host = "evil.example:" + strconv.Itoa(p.port) }, http.StatusMisdirectedRequest},
		{"other port", func(r *request) { r.host = "127.0.0.1:1" }, http.StatusMisdirectedRequest},
		{"cross-site origin", func(r *request) { r.origin = "http://evil.example" }, http.StatusForbidden},
		{"cross-site fetch", func(r *request) { r.fetchSite = "cross-site" }, http.StatusForbidden},
		{"same-site fetch", func(r *request) { r.fetchSite = "same-site" }, http.StatusForbidden},
	}
	for _, e := range endpoints(ids) {
		t.Run(e.name, func(t *testing.T) {
			base := request{method: e.method, path: e.path, body: e.body}
			// Positive control: the page's own request passes the guard.
			code, hdr, body := p.do(t, base)
			if e.read && code != http.StatusOK {
				t.Fatalf("the page's own request: %d %s", code, body)
			}
			if !e.read && (code < 400 || code >= 500 || !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") || !bytes.Contains(body, []byte("error"))) {
				t.Fatalf("the page's own write on an unknown id: %d %s %s: want the daemon's refusal as JSON", code, hdr.Get("Content-Type"), body)
			}
			checkHeaders(t, hdr)
			for _, rf := range refusals {
				r := base
				rf.mod(&r)
				code, hdr, body := p.do(t, r)
				if code != rf.want {
					t.Errorf("%s: %d %s, want %d", rf.name, code, body, rf.want)
				}
				if strings.Contains(string(body), textMadrid) {
					t.Errorf("%s: the refusal leaks memory text: %s", rf.name, body)
				}
				checkHeaders(t, hdr)
			}
			if e.method == http.MethodPost {
				for _, r := range []request{
					{method: e.method, path: e.path, body: e.body, origin: "-"},
					{method: e.method, path: e.path, body: e.body, contentType: "text/plain"},
				} {
					if code, _, body := p.do(t, r); code != http.StatusForbidden && code != http.StatusUnsupportedMediaType {
						t.Errorf("origin %q, content type %q: %d %s, want it refused", r.origin, r.contentType, code, body)
					}
				}
			}
		})
	}
}

// checkHeaders: every answer carries the page's security headers.
func checkHeaders(t *testing.T, h http.Header) {
	t.Helper()
	csp := h.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'self'", "script-src 'self'", "frame-ancestors 'none'", "object-src 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("Content-Security-Policy %q allows inline or eval", csp)
	}
	if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "DENY" {
		t.Errorf("headers %v: want nosniff and DENY", h)
	}
}

// TestTokenTrade: the address's token becomes the cookie; a wrong one, or
// a token from another page, is refused.
func TestTokenTrade(t *testing.T) {
	ctx := testenv.Context(t)
	w := startDaemon(t, 0)
	p := servePage(t, ctx, w) // the right token: cookie and redirect (checked inside)
	for _, tok := range []string{"", "wrong", strings.Repeat("a", 64), p.token + "0", strings.ToUpper(p.token)} {
		code, hdr, _ := p.do(t, request{method: http.MethodGet, path: "/?token=" + url.QueryEscape(tok), noCookie: true})
		if code != http.StatusUnauthorized || hdr.Get("Set-Cookie") != "" {
			t.Errorf("token %q: %d, cookie %q: want 401 and no cookie", tok, code, hdr.Get("Set-Cookie"))
		}
	}
	// The person who opens the bare address (a bookmark after a restart,
	// the token lost) gets a page that says what to run, in both
	// languages, styled by the one inline stylesheet its policy allows by
	// hash; the page's script or an asset without the token gets the plain
	// refusal, and the page itself (the positive control) its own HTML.
	code, hdr, body := p.do(t, request{method: http.MethodGet, path: "/", noCookie: true})
	csp := hdr.Get("Content-Security-Policy")
	if code != http.StatusUnauthorized || !strings.HasPrefix(hdr.Get("Content-Type"), "text/html") || !bytes.Contains(body, []byte("<pre>ihmt ui</pre>")) ||
		!bytes.Contains(body, []byte(`lang="es"`)) || !strings.Contains(csp, "style-src 'sha256-") || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("the bare address: %d %q, CSP %q:\n%s", code, hdr.Get("Content-Type"), csp, body)
	}
	checkHeaders(t, hdr)
	_, rest, _ := strings.Cut(string(body), "<style>")
	css, _, _ := strings.Cut(rest, "</style>")
	sum := sha256.Sum256([]byte(css))
	if !strings.Contains(csp, base64.StdEncoding.EncodeToString(sum[:])) {
		t.Errorf("the policy's hash is not the stylesheet's: %q", csp)
	}
	if code, hdr, body := p.do(t, request{method: http.MethodGet, path: "/static/app.js", noCookie: true}); code != http.StatusUnauthorized || strings.HasPrefix(hdr.Get("Content-Type"), "text/html") {
		t.Errorf("an asset without the token: %d %q %.80s", code, hdr.Get("Content-Type"), body)
	}
	if code, _, body := p.do(t, request{method: http.MethodGet, path: "/"}); code != http.StatusOK || bytes.Contains(body, []byte("<pre>ihmt ui</pre>")) {
		t.Errorf("the page with its cookie: %d %.80s", code, body)
	}
	// localhost is the page's other name; a rebinding name is not.
	if code, _, _ := p.do(t, request{method: http.MethodGet, path: "/", host: "localhost:" + strconv.Itoa(p.port)}); code != http.StatusOK {
		t.Errorf("localhost: %d, want 200", code)
	}
	if code, _, _ := p.do(t, request{method: http.MethodGet, path: "/?token=" + p.token, host: "attacker.example:" + strconv.Itoa(p.port), noCookie: true}); code != http.StatusMisdirectedRequest {
		t.Errorf("the right token under a rebinding name: %d, want 421", code)
	}
}

// TestServeIsThePersons: only the person may start the page; asking again
// returns the same address; another port while served is refused.
func TestServeIsThePersons(t *testing.T) {
	ctx := testenv.Context(t)
	w := startDaemon(t, 0)
	agent, err := client.New(client.Options{Socket: w.sock, Caller: agentA})
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	if _, err := agent.ServePage(ctx, &ihmtv1.ServeRequest{}); !errors.Is(err, client.ErrPermission) {
		t.Errorf("an agent starting the page: %v, want ErrPermission", err)
	}
	st, err := w.person.PageStatus(ctx)
	if err != nil || st.GetServing() {
		t.Fatalf("status before serving: %v %v", st, err)
	}
	first, err := w.person.ServePage(ctx, &ihmtv1.ServeRequest{})
	if err != nil || !first.GetStarted() || first.GetProject() != alpha {
		t.Fatalf("the person starting the page: %v %v", first, err)
	}
	again, err := w.person.ServePage(ctx, &ihmtv1.ServeRequest{Port: first.GetPort()})
	if err != nil || again.GetStarted() || again.GetUrl() != first.GetUrl() {
		t.Errorf("asking again: %v %v, want the same address", again, err)
	}
	other := first.GetPort() + 1
	if other > 65535 {
		other = 1024
	}
	elsewhere, err := client.New(client.Options{Socket: w.sock, Caller: &ihmtv1.Caller{AgentName: ihmtv1.PersonAgent, AgentVersion: "test", SessionId: "cli-2", Project: "github.com/org/beta"}})
	if err != nil {
		t.Fatal(err)
	}
	defer elsewhere.Close()
	if _, err := elsewhere.ServePage(ctx, &ihmtv1.ServeRequest{Port: other}); !errors.Is(err, client.ErrConflict) {
		t.Errorf("another port while served: %v, want ErrConflict", err)
	}
	if st, err := w.person.PageStatus(ctx); err != nil || st.GetProject() != alpha {
		t.Errorf("a refused Serve from beta moved the page: project %q (%v), want %s", st.GetProject(), err, alpha)
	}
	if _, err := w.person.ServePage(ctx, &ihmtv1.ServeRequest{Port: 70000}); !errors.Is(err, client.ErrInvalid) {
		t.Errorf("port 70000: %v, want ErrInvalid", err)
	}
	st, err = w.person.PageStatus(ctx)
	if err != nil || !st.GetServing() || !strings.HasPrefix(first.GetUrl(), st.GetAddress()) || strings.Contains(st.GetAddress(), "token") {
		t.Errorf("status while serving: %v %v: want the address without its token", st, err)
	}
}

// TestScopeAsTheCLI: what the page sees in each scope is what the command
// line sees from the same project — whatever caller a request names.
func TestScopeAsTheCLI(t *testing.T) {
	ctx := testenv.Context(t)
	w := startDaemon(t, 0)
	ids := seed(t, ctx, w.sock)
	p := servePage(t, ctx, w)
	cli, err := client.New(client.Options{Socket: w.sock, Caller: &ihmtv1.Caller{AgentName: ihmtv1.PersonAgent, Project: alpha}})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()

	for _, scope := range []string{"default", "project", "global", "all"} {
		sc, _ := ihmtv1.ParseSearchScope(scope)
		for _, q := range []string{"billing service deploys Fridays", "staging database Postgres", "tabs spaces Go"} {
			want, err := cli.Search(ctx, &ihmtv1.SearchRequest{Query: q, Scope: sc})
			if err != nil {
				t.Fatal(err)
			}
			for _, claimed := range []*ihmtv1.Caller{nil, agentBeta} {
				var got struct {
					Status  string `json:"status"`
					Results []struct {
						Memory struct{ ID string } `json:"memory"`
					} `json:"results"`
				}
				body := map[string]any{"query": q, "scope": sc.String()}
				if claimed != nil {
					body["caller"] = map[string]string{"agent_name": claimed.AgentName, "project": claimed.Project}
				}
				if code := p.call(t, "Search", body, &got); code != http.StatusOK {
					t.Fatalf("search %q in %s: %d", q, scope, code)
				}
				var gotIDs, wantIDs []string
				for _, r := range got.Results {
					gotIDs = append(gotIDs, r.Memory.ID)
				}
				for _, r := range want.GetResults() {
					wantIDs = append(wantIDs, r.GetMemory().GetId())
				}
				if got.Status != want.GetStatus().String() || !slices.Equal(gotIDs, wantIDs) {
					t.Errorf("search %q in %s (claiming %v): page %s %v, CLI %s %v", q, scope, claimed, got.Status, gotIDs, want.GetStatus(), wantIDs)
				}
			}
		}
		var tree struct {
			Nodes []struct{ ID string } `json:"nodes"`
		}
		p.call(t, "Tree", map[string]any{"depth": 0, "scope": sc.String()}, &tree)
		want, err := cli.Tree(ctx, &ihmtv1.TreeRequest{Scope: sc})
		if err != nil {
			t.Fatal(err)
		}
		if len(tree.Nodes) != len(want.GetNodes()) {
			t.Errorf("tree in %s: page %d nodes, CLI %d", scope, len(tree.Nodes), len(want.GetNodes()))
		}
	}
	// Another project's memory needs the scope all, on the page as in the CLI.
	betaID := ids[textBeta]
	if code := p.call(t, "Get", map[string]any{"id": betaID}, nil); code != http.StatusNotFound {
		t.Errorf("another project's memory in the default scope: %d, want 404", code)
	}
	if code := p.call(t, "Get", map[string]any{"id": betaID, "caller": map[string]string{"agent_name": "codex", "project": beta}}, nil); code != http.StatusNotFound {
		t.Errorf("another project's memory, claiming to be in it: %d, want 404", code)
	}
	var got struct {
		Memory struct{ Content string } `json:"memory"`
	}
	if code := p.call(t, "Get", map[string]any{"id": betaID, "scope": "SEARCH_SCOPE_ALL"}, &got); code != http.StatusOK || got.Memory.Content != textBeta {
		t.Errorf("another project's memory in the scope all: %d %q", code, got.Memory.Content)
	}
}

// TestThePersonsActions: review, forget, restore and purge from the page
// are the person's, recorded as such, and seen through the CLI's client.
func TestThePersonsActions(t *testing.T) {
	ctx := testenv.Context(t)
	w := startDaemon(t, 0)
	ids := seed(t, ctx, w.sock)
	p := servePage(t, ctx, w)

	var queue struct {
		Memories []struct {
			ID         string `json:"id"`
			ReviewNote string `json:"review_note"`
		} `json:"memories"`
	}
	p.call(t, "ListReview", map[string]any{}, &queue)
	pending := ids[textInjected]
	if len(queue.Memories) != 1 || queue.Memories[0].ID != pending || queue.Memories[0].ReviewNote == "" {
		t.Fatalf("review queue %+v: want the injected save, with why it waits", queue)
	}
	if code := p.call(t, "Review", map[string]any{"id": pending, "decision": "REVIEW_DECISION_APPROVE", "note": "checked by hand"}, nil); code != http.StatusOK {
		t.Fatalf("approve: %d", code)
	}
	m, err := w.person.Get(ctx, &ihmtv1.GetRequest{Id: pending})
	if err != nil || m.GetMemory().GetTrust() != ihmtv1.Trust_TRUST_VERIFIED {
		t.Fatalf("after approval: %v %v: want verified", m, err)
	}

	tabs := ids[textTabs]
	find := func() bool {
		r, err := w.person.Search(ctx, &ihmtv1.SearchRequest{Query: "tabs spaces Go code", Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range r.GetResults() {
			if x.GetMemory().GetId() == tabs {
				return true
			}
		}
		return false
	}
	if !find() {
		t.Fatal("positive control: the preference is found before it is forgotten")
	}
	if code := p.call(t, "Forget", map[string]any{"id": tabs, "reason": "wrong"}, nil); code != http.StatusOK || find() {
		t.Fatalf("forget: %d, still found %v", code, find())
	}
	if code := p.call(t, "Restore", map[string]any{"id": tabs}, nil); code != http.StatusOK || !find() {
		t.Fatalf("restore: %d, found %v", code, find())
	}
	if code := p.call(t, "Purge", map[string]any{"id": tabs}, nil); code != http.StatusConflict {
		t.Errorf("purging a live memory: %d, want 409 (forget it first)", code)
	}
	p.call(t, "Forget", map[string]any{"id": tabs, "reason": "for good"}, nil)
	if code := p.call(t, "Purge", map[string]any{"id": tabs}, nil); code != http.StatusOK {
		t.Fatalf("purge: %d", code)
	}
	var log struct {
		Entries []struct {
			Op    string `json:"op"`
			Agent struct {
				Name string `json:"name"`
			} `json:"agent"`
			SessionID string `json:"session_id"`
		} `json:"entries"`
	}
	p.call(t, "MemoryLog", map[string]any{"id": tabs}, &log)
	var ops []string
	for _, e := range log.Entries {
		ops = append(ops, e.Op)
		if e.Op != "save" && (e.Agent.Name != ihmtv1.PersonAgent || !strings.HasPrefix(e.SessionID, "ui-")) {
			t.Errorf("log entry %+v: want the person, in the page's session", e)
		}
	}
	if !slices.Contains(ops, "save") || !slices.Contains(ops, "forget") || !slices.Contains(ops, "restore") || !slices.Contains(ops, "purge") {
		t.Errorf("the memory's log %v: want its save, forget, restore and purge", ops)
	}
}

// TestConfirmProbable: confirming a probable successor from the page makes
// it a correction the CLI sees.
func TestConfirmProbable(t *testing.T) {
	ctx := testenv.Context(t)
	w := startDaemon(t, 0)
	ids := seed(t, ctx, w.sock)
	p := servePage(t, ctx, w)
	redis, valkey := ids[textRedis], ids[textValkey]
	var conflicts struct {
		Probable []struct {
			Old struct{ ID string } `json:"old"`
			New struct{ ID string } `json:"new"`
		} `json:"probable"`
	}
	p.call(t, "Conflicts", map[string]any{}, &conflicts)
	if len(conflicts.Probable) != 1 || conflicts.Probable[0].Old.ID != redis || conflicts.Probable[0].New.ID != valkey {
		t.Fatalf("probable successors %+v: want Redis → Valkey", conflicts)
	}
	if code := p.call(t, "MarkOutdated", map[string]any{"old_id": redis, "new_id": valkey}, nil); code != http.StatusOK {
		t.Fatalf("confirm: %d", code)
	}
	if m, err := w.person.Get(ctx, &ihmtv1.GetRequest{Id: redis}); err != nil || !slices.Contains(m.GetMemory().GetCorrectedBy(), valkey) {
		t.Errorf("after confirming: %v %v: want Redis corrected by Valkey", m, err)
	}

}

// TestMarkupIsText: memory text that reads like markup comes back exactly,
// as JSON the browser will not sniff, and the page's script has no way to
// put a string into the document as HTML. (The browser test sees it.)
func TestMarkupIsText(t *testing.T) {
	ctx := testenv.Context(t)
	w := startDaemon(t, 0)
	ids := seed(t, ctx, w.sock)
	p := servePage(t, ctx, w)
	for _, text := range []string{textScript, textImg, textMadrid} {
		var got struct {
			Memory struct{ Content string } `json:"memory"`
		}
		b, _ := json.Marshal(map[string]string{"id": ids[text]})
		code, hdr, body := p.do(t, request{path: "/api/Get", body: string(b)})
		if code != http.StatusOK || json.Unmarshal(body, &got) != nil || got.Memory.Content != text {
			t.Errorf("%q: %d %s", text, code, body)
		}
		if hdr.Get("Content-Type") != "application/json" || hdr.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%q: served as %q", text, hdr.Get("Content-Type"))
		}
	}
	script, err := os.ReadFile("assets/app.js")
	if err != nil {
		t.Fatal(err)
	}
	sinks := regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function|DOMParser|createContextualFragment|srcdoc`)
	if m := sinks.FindAll(script, -1); len(m) > 0 {
		t.Errorf("app.js uses HTML sinks: %q", m)
	}
	// Positive control: the checker reads the script, which inserts text.
	if !bytes.Contains(script, []byte("createTextNode")) || !sinks.Match([]byte("el.innerHTML = x")) {
		t.Error("the sink check reads nothing")
	}
	html, _ := os.ReadFile("assets/index.html")
	if inline := regexp.MustCompile(`<script>|<script [^>]*>[^<]|\son[a-z]+=|style=`).FindAll(html, -1); len(inline) > 0 {
		t.Errorf("index.html has inline script or style, which the policy refuses: %q", inline)
	}
}

// TestRefusedCalls: the calls that stay with the command line and agents
// are not on the page.
func TestRefusedCalls(t *testing.T) {
	ctx := testenv.Context(t)
	w := startDaemon(t, 0)
	p := servePage(t, ctx, w)
	for _, m := range []string{"Save", "Shutdown", "Export", "Import", "Ingest", "Rebuild", "Consolidate", "Serve", "Brief", "Nope"} {
		if code, _, body := p.do(t, request{path: "/api/" + m, body: `{"content":"x"}`}); code != http.StatusNotFound {
			t.Errorf("%s: %d %s, want 404", m, code, body)
		}
	}
	if code := p.call(t, "Stats", map[string]any{}, nil); code != http.StatusOK {
		t.Errorf("positive control: Stats %d", code)
	}
	for _, path := range []string{"/static/", "/static/../page.go", "/page.go", "/assets/app.js"} {
		code, hdr, body := p.do(t, request{method: http.MethodGet, path: path})
		if code == http.StatusTemporaryRedirect || code == http.StatusMovedPermanently {
			// The router cleans a path with dots: the clean one must be refused.
			code, _, body = p.do(t, request{method: http.MethodGet, path: hdr.Get("Location")})
		}
		if code != http.StatusNotFound {
			t.Errorf("GET %s: %d %.80s, want 404", path, code, body)
		}
	}
	if code, _, _ := p.do(t, request{path: "/api/Search", body: `{"query": 7}`}); code != http.StatusBadRequest {
		t.Errorf("a malformed request: %d, want 400", code)
	}
	if code, _, _ := p.do(t, request{path: "/api/Search", body: `{"query":"` + strings.Repeat("a", 2<<20) + `"}`}); code != http.StatusRequestEntityTooLarge {
		t.Errorf("a 2 MiB request: %d, want 413", code)
	}
}
