package ui

import (
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"io/fs"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

//go:embed assets
var assets embed.FS

// guard is what every request must pass: the page's port (for Host and
// Origin) and its token.
type guard struct {
	port  string
	token string
}

// cookie names the cookie that carries the token after the first load. A
// browser sends a cookie of 127.0.0.1 to every port there, so each page's
// is named for its port: two pages do not overwrite each other's.
func (g guard) cookie() string { return "ihmt_ui_" + g.port }

// handler routes the page's requests behind the guard; p.port and p.token
// are set.
func (p *Page) handler() http.Handler {
	g := guard{port: strconv.Itoa(p.port), token: p.token}
	static, _ := fs.Sub(assets, "assets")
	files := http.FileServerFS(static)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, static, "index.html")
	})
	mux.Handle("GET /static/", http.StripPrefix("/static/", noListing(files)))
	mux.HandleFunc("POST /api/{method}", p.api)
	return g.wrap(p.noteRequest(mux))
}

// noListing answers a directory with 404: the page's files are named.
func noListing(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "" || strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// noteRequest records when the page last asked anything (Status says it).
func (p *Page) noteRequest(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.lastReq.Store(time.Now().UnixNano())
		next.ServeHTTP(w, r)
	})
}

// wrap sets the security headers on every answer and refuses a request
// that fails the guard, before it reaches the page.
func (g guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		if !g.hostOK(r.Host) {
			// A DNS-rebinding page reaches us under its own name.
			refuse(w, http.StatusMisdirectedRequest, "this page answers only at 127.0.0.1:"+g.port+" or localhost:"+g.port)
			return
		}
		if !g.originOK(r) {
			refuse(w, http.StatusForbidden, "cross-site request refused: the page's own origin only")
			return
		}
		if g.tradeToken(w, r) {
			return
		}
		if !g.cookieOK(r) {
			if isPageLoad(r) {
				noTokenPage(w)
				return
			}
			refuse(w, http.StatusUnauthorized, "no valid token: open the address `ihmt ui` prints (the token changes each time the daemon starts)")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostOK accepts the page's own address under its two loopback names.
func (g guard) hostOK(host string) bool {
	return host == "127.0.0.1:"+g.port || host == "localhost:"+g.port
}

// originOK requires a request that may change something, and every API
// call, to come from the page itself: its Origin must be the page's, and
// a browser's Fetch metadata, when sent, must say same-origin. A GET of
// the page or its assets may carry no Origin (a typed address).
func (g guard) originOK(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return false
	}
	origin := r.Header.Get("Origin")
	mustHave := r.Method != http.MethodGet && r.Method != http.MethodHead || strings.HasPrefix(r.URL.Path, "/api/")
	if origin == "" {
		return !mustHave
	}
	return origin == "http://127.0.0.1:"+g.port || origin == "http://localhost:"+g.port
}

// tradeToken answers the first load, whose address carries the token: a
// right token becomes the cookie and a redirect to the address without it
// (out of the history and any Referer), a wrong one is refused. It reports
// whether it answered.
func (g guard) tradeToken(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet || !r.URL.Query().Has("token") {
		return false
	}
	if !g.tokenOK(r.URL.Query().Get("token")) {
		noTokenPage(w)
		return true
	}
	http.SetCookie(w, &http.Cookie{Name: g.cookie(), Value: g.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return true
}

func (g guard) cookieOK(r *http.Request) bool {
	for _, c := range r.CookiesNamed(g.cookie()) {
		if g.tokenOK(c.Value) {
			return true
		}
	}
	return false
}

func (g guard) tokenOK(s string) bool {
	return subtle.ConstantTimeCompare([]byte(s), []byte(g.token)) == 1
}

// refuse answers a refused request in plain text: it is read by a person
// in the address bar, or by the page's script, which shows it as text.
func refuse(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(code)
	w.Write([]byte(msg + "\n"))
}

// isPageLoad reports whether a request is a person opening the page (the
// address typed or bookmarked), not the page's script or an asset.
func isPageLoad(r *http.Request) bool {
	return r.Method == http.MethodGet && r.URL.Path == "/"
}

// noToken is the page a person sees at an address without its key: what
// happened and what to run, in English and Spanish. It is a file of the
// page's assets; its one inline stylesheet is allowed by its hash, so the
// policy still allows no inline script or style but this one.
var noToken, noTokenCSP = func() ([]byte, string) {
	b, err := assets.ReadFile("assets/notoken.html")
	if err != nil {
		panic("the page's assets lack notoken.html: " + err.Error())
	}
	_, rest, _ := strings.Cut(string(b), "<style>")
	css, _, ok := strings.Cut(rest, "</style>")
	if !ok {
		panic("notoken.html has no <style> block")
	}
	sum := sha256.Sum256([]byte(css))
	return b, "default-src 'self'; script-src 'self'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; img-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
}()

// noTokenPage answers a page load without a valid key with noToken.
func noTokenPage(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", noTokenCSP)
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusUnauthorized)
	w.Write(noToken)
}

// listenLoopback listens on 127.0.0.1:port, refusing other users' processes
// where the system lets us tell (peer_linux.go).
func listenLoopback(port int) (net.Listener, error) {
	lis, err := net.Listen("tcp4", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return nil, err
	}
	return sameUser(lis), nil
}
