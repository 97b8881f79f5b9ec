package screen

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	wordlists "github.com/ihmt-dev/ihmt/pkg/lexicon/words"
)

// What Secrets reports. The order of kindOrder is the order of specificity:
// when two matches cover the same bytes, the one listed first is kept, so
// GITHUB_TOKEN=ghp_… is one GitHub token, not also a hard-coded secret.
const (
	kindAWSKeyID    = "AWS access key id"
	kindGitHub      = "GitHub token"
	kindGitLab      = "GitLab token"
	kindSlackHook   = "Slack webhook URL"
	kindSlack       = "Slack token"
	kindStripe      = "Stripe API key"
	kindAnthropic   = "Anthropic API key"
	kindOpenAI      = "OpenAI API key"
	kindGoogle      = "Google API key"
	kindHuggingFace = "Hugging Face token"
	kindPyPI        = "PyPI token"
	kindGCP         = "GCP service account key"
	kindPrivateKey  = "private key"
	kindJWT         = "JWT"
	kindAWSSecret   = "AWS secret access key"
	kindBearer      = "bearer token"
	kindURLPassword = "password in a URL"
	kindEncodedCred = "encoded credential"
	kindCommandPass = "password on a command line"
	kindPassword    = "hard-coded password"
	kindSecret      = "hard-coded secret"
	kindEntropy     = "high-entropy secret"
)

var kindOrder = []string{
	kindAWSKeyID, kindGitHub, kindGitLab, kindSlackHook, kindSlack, kindStripe,
	kindAnthropic, kindOpenAI, kindGoogle, kindHuggingFace, kindPyPI, kindGCP,
	kindPrivateKey, kindJWT, kindAWSSecret, kindBearer, kindURLPassword,
	kindEncodedCred, kindCommandPass, kindPassword, kindSecret, kindEntropy,
}

// entropyThreshold is the Shannon entropy, in bits per byte, a value of at
// least minEntropyLen bytes needs to read as random: random base62 of 16–40
// characters measures about 3.7–5.0, identifiers and hyphenated words
// mostly 2.8–3.5 (short ones with all-distinct letters more, which is why
// looksRandom also looks for words). Hex carries at most 4 bits a
// character, and random hex of 16–64 characters measures 3.0–3.9, so it
// has its own, lower bar.
const (
	entropyThreshold    = 3.5
	hexEntropyThreshold = 3.0
	minEntropyLen       = 16
)

// tokenPattern is a secret with a recognisable shape. Every regexp starts
// with a literal, so the regexp engine skips to candidates with a substring
// search instead of stepping its automaton through every byte: that is what
// keeps screening the longest text a save allows cheap.
type tokenPattern struct {
	kind string
	re   *regexp.Regexp
	// fixed is the length of the literal prefix; the rest is the body that
	// must look random (classes character classes of upper, lower, digit).
	fixed, classes int
	// body is the shortest body a match has; only a pattern with a body
	// is looked for in the joined view.
	body int
	// check, when set, decides the match given the whole text and the
	// span of the secret.
	check func(text string, s, e int) bool
	// shape, when set, is the token's whole structure (anchored): in the
	// joined view a match of it is a token even when the body's opening
	// does not look random (a Slack token opens with digit groups).
	shape *regexp.Regexp
}

var tokenPatterns = []tokenPattern{
	{kind: kindAWSKeyID, re: regexp.MustCompile(`AKIA[0-9A-Z]{16}`), body: 16, fixed: 4},
	{kind: kindAWSKeyID, re: regexp.MustCompile(`ASIA[0-9A-Z]{16}`), body: 16, fixed: 4},
	{kind: kindGitHub, re: regexp.MustCompile(`gh[pousr]_[0-9A-Za-z]{36,251}`), body: 36, fixed: 4, classes: 2},
	{kind: kindGitHub, re: regexp.MustCompile(`github_pat_[0-9A-Za-z_]{40,251}`), body: 40, fixed: 11, classes: 2},
	{kind: kindGitLab, re: regexp.MustCompile(`glpat-[0-9A-Za-z_-]{20,}`), body: 20, fixed: 6, classes: 2},
	{kind: kindSlack, re: regexp.MustCompile(`xox[abprs]-[0-9A-Za-z-]{10,}`), body: 10, fixed: 5, classes: 2, check: hasDigit,
		shape: regexp.MustCompile(`^xox[abprs]-[0-9]{8,14}-[0-9]{8,14}(?:-[0-9]{8,14})?-[0-9A-Za-z]{20,40}`)},
	{kind: kindSlackHook, re: regexp.MustCompile(`hooks\.slack\.com/services/[0-9A-Za-z_/]+`), check: slackHook},
	{kind: kindStripe, re: regexp.MustCompile(`sk_(?:live|test)_[0-9A-Za-z]{16,}`), body: 16, fixed: 8, classes: 2},
	{kind: kindStripe, re: regexp.MustCompile(`rk_(?:live|test)_[0-9A-Za-z]{16,}`), body: 16, fixed: 8, classes: 2},
	{kind: kindAnthropic, re: regexp.MustCompile(`sk-ant-[0-9A-Za-z_-]{20,}`), body: 20, fixed: 7, classes: 3},
	// The OpenAI shape ("sk-" then 20+ characters) also fits hyphenated
	// words, so its body must mix upper, lower and digits, as every real key
	// of 48+ random characters does.
	{kind: kindOpenAI, re: regexp.MustCompile(`sk-[0-9A-Za-z_-]{20,}`), body: 20, fixed: 3, classes: 3, check: notAnthropic},
	{kind: kindGoogle, re: regexp.MustCompile(`AIza[0-9A-Za-z_-]{35}`), body: 35, fixed: 4, classes: 2},
	{kind: kindHuggingFace, re: regexp.MustCompile(`hf_[0-9A-Za-z]{30,}`), body: 30, fixed: 3, classes: 2},
	{kind: kindPyPI, re: regexp.MustCompile(`pypi-AgE[0-9A-Za-z_-]{50,}`), body: 50, fixed: 5, classes: 2},
	{kind: kindPrivateKey, re: regexp.MustCompile(`-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----`), check: keyMaterial},
	{kind: kindJWT, re: regexp.MustCompile(`eyJ[0-9A-Za-z_-]{8,}\.[0-9A-Za-z_-]{8,}\.[0-9A-Za-z_-]{16,}`), check: jwtHeader},
	// Opaque bearer tokens in an Authorization header or a curl line; the
	// submatch is the token, which must also look random.
	{kind: kindBearer, re: regexp.MustCompile(`Bearer[ \t]+([0-9A-Za-z._~+/-]{20,}=*)`), classes: 2, check: random},
	{kind: kindBearer, re: regexp.MustCompile(`bearer[ \t]+([0-9A-Za-z._~+/-]{20,}=*)`), classes: 2, check: random},
}

// gcpType marks a Google service-account key file; its "private_key" is
// the secret.
var gcpType = regexp.MustCompile(`"type"\s*:\s*"service_account"`)

// candidate is a match before overlapping matches are resolved.
type candidate struct {
	kind       string
	rank       int
	start, end int
}

// scan returns the candidates of one view of a text: every check of
// Secrets but the views themselves.
func scan(text string) []candidate {
	var cs []candidate
	add := func(kind string, s, e int) {
		cs = append(cs, candidate{kind: kind, rank: slices.Index(kindOrder, kind), start: s, end: e})
	}
	for _, p := range tokenPatterns {
		for _, m := range p.re.FindAllStringSubmatchIndex(text, -1) {
			s, e := m[0], m[1]
			if len(m) > 2 {
				s, e = m[2], m[3]
			}
			if !p.accept(text, s, e) {
				continue
			}
			if p.kind == kindSlackHook && s >= len("https://") && text[s-len("https://"):s] == "https://" {
				s -= len("https://")
			}
			add(p.kind, s, e)
		}
	}
	gcpKeys(text, add)
	urlPasswords(text, add)
	assignments(text, add)
	ws := words(text)
	prosePasswords(text, ws, add)
	commandPasswords(text, ws, add)
	basicAuths(text, add)
	return cs
}

// accept applies the checks every shaped token shares: it stands alone (not
// the middle of a longer word), is not marked as an example, has a body
// that looks random, and passes the pattern's own check.
func (p tokenPattern) accept(text string, s, e int) bool {
	if isAlnum(text[s]) && s > 0 && isAlnum(text[s-1]) {
		return false
	}
	if isAlnum(text[e-1]) && e < len(text) && isAlnum(text[e]) {
		return false
	}
	tok := text[s:e]
	if exampleMarked(tok) {
		return false
	}
	if p.fixed > 0 && sameChar(tok[p.fixed:]) {
		return false
	}
	if p.classes > 0 && charClasses(tok[min(p.fixed, len(tok)):]) < p.classes {
		return false
	}
	return p.check == nil || p.check(text, s, e)
}

func hasDigit(text string, s, e int) bool {
	return strings.ContainsAny(text[s:e], "0123456789")
}

func notAnthropic(text string, s, e int) bool {
	return !strings.HasPrefix(text[s:e], "sk-ant-")
}

func random(text string, s, e int) bool {
	return looksRandom(text[s:e], false)
}

// slackHook wants the three parts of a real incoming-webhook path:
// T<team>/B<bot>/<secret>.
func slackHook(text string, s, e int) bool {
	parts := strings.Split(strings.TrimPrefix(text[s:e], "hooks.slack.com/services/"), "/")
	return len(parts) >= 3 && len(parts[0]) >= 8 && parts[0][0] == 'T' &&
		len(parts[1]) >= 8 && parts[1][0] == 'B' && len(parts[2]) >= 16 && charClasses(parts[2]) >= 2
}

// keyMaterial reports whether a BEGIN … PRIVATE KEY line is followed by a
// key, not just named in prose ("the file starts with -----BEGIN OPENSSH
// PRIVATE KEY-----" leaks nothing). It reads the words that follow, split at
// white space and JSON-escaped "\n", and wants 32 characters of base64 in
// runs of 16 or more (PEM lines are 64), skipping the short words of PEM
// headers ("Proc-Type: 4,ENCRYPTED", "Version: …") before the body.
func keyMaterial(text string, _, e int) bool {
	n := 0
	end := min(len(text), e+512)
	// sep is the length of the separator at i: white space or an escaped
	// newline, or 0.
	sep := func(i int) int {
		switch {
		case text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n':
			return 1
		case text[i] == '\\' && i+1 < end && (text[i+1] == 'n' || text[i+1] == 'r'):
			return 2
		}
		return 0
	}
	for i := e; i < end; {
		for i < end && sep(i) > 0 {
			i += sep(i)
		}
		w := i
		for i < end && sep(i) == 0 {
			i++
		}
		word := text[w:i]
		switch {
		case word == "":
			continue
		case strings.HasPrefix(word, "-----"):
			return false // the END line, or the next BEGIN
		case len(word) >= 16 && isBase64Std(strings.TrimRight(word, "=")):
			n += len(word)
			if n >= 32 {
				return true
			}
		case n > 0:
			return false // the body ended short: an excerpt, not a key
		}
	}
	return false
}

// jwtHeader wants the first segment to decode to a JSON object with "alg",
// which is what makes three dotted base64url runs a JWT.
func jwtHeader(text string, s, e int) bool {
	seg, _, _ := strings.Cut(text[s:e], ".")
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(seg, "="))
	if err != nil {
		return false
	}
	var h map[string]json.RawMessage
	if json.Unmarshal(raw, &h) != nil {
		return false
	}
	_, ok := h["alg"]
	return ok
}

// gcpKeys finds the "private_key" of a service-account key file: a text
// that says "type": "service_account" and carries a private_key value.
func gcpKeys(text string, add func(string, int, int)) {
	if !gcpType.MatchString(text) {
		return
	}
	const key = `"private_key"`
	for i := 0; ; {
		k := strings.Index(text[i:], key)
		if k < 0 {
			return
		}
		i += k + len(key)
		j := skipSpace(text, i)
		if j >= len(text) || text[j] != ':' {
			continue
		}
		j = skipSpace(text, j+1)
		if j >= len(text) || text[j] != '"' {
			continue
		}
		s, e := j+1, quotedEnd(text, j+1, '"')
		if v := text[s:e]; len(v) >= 16 && !placeholder(v) {
			add(kindGCP, s, e)
		}
		i = e
	}
}

// urlPasswords finds scheme://user:password@host in any scheme: database
// and broker connection strings (postgres, mysql, mongodb+srv, redis, amqp,
// …) and plain http(s) alike. A placeholder password (***, <password>,
// ${VAR}, $VAR, "password") is not a secret, nor is a password equal to the
// user name (postgres:postgres, guest:guest): a well-known default that
// says nothing a reader could not guess.
func urlPasswords(text string, add func(string, int, int)) {
	for i := 0; ; {
		k := strings.Index(text[i:], "://")
		if k < 0 {
			return
		}
		k += i
		i = k + 3
		s := k
		for s > 0 && (isAlnum(text[s-1]) || text[s-1] == '+' || text[s-1] == '.' || text[s-1] == '-') {
			s--
		}
		if s == k || !isLetter(text[s]) {
			continue
		}
		e := i
		for e < len(text) && !strings.ContainsRune(" \t\r\n\"'`\\<>()", rune(text[e])) {
			e++
		}
		// The password may hold any punctuation (# ? / @ included), so the
		// user information ends at the last @ that a host follows.
		auth := text[i:e]
		at := strings.LastIndexByte(auth, '@')
		if at < 0 || at == len(auth)-1 || !(isAlnum(auth[at+1]) || auth[at+1] == '[') {
			continue
		}
		user, pw, ok := strings.Cut(auth[:at], ":")
		if !ok || strings.ContainsAny(user, "/?#@") || len(pw) < 3 || placeholder(pw) || pw == user || portPath(pw) {
			continue
		}
		ps := i + len(user) + 1
		add(kindURLPassword, ps, ps+len(pw))
	}
}

// portPath is what follows host: in a URL without a password in it
// (8080/path@v2): a port, then a path.
func portPath(pw string) bool {
	n := 0
	for n < len(pw) && isDigit(pw[n]) {
		n++
	}
	return n > 0 && n <= 5 && (n == len(pw) || pw[n] == '/' || pw[n] == '?' || pw[n] == '#')
}

// nameClass is what a variable's name says about its value.
type nameClass int

const (
	notSecret nameClass = iota
	// passwordName (DB_PASSWORD, PGPASSWORD, smtpPass, MYSQL_PWD): any
	// literal of 4+ characters is refused.
	passwordName
	// secretName (GITHUB_TOKEN, CLIENT_SECRET, API_KEY, SECRET_KEY): any
	// literal of 8+ characters is refused.
	secretName
	// weakName (STRIPE_KEY, SORT_KEY, key) and idName (KEY_ID,
	// TOKEN_ID): only a value that looks random is refused, because
	// such names hold ordinary values as often as secrets.
	weakName
	idName
)

// strongKeyWords are the words that make NAME_KEY a credential rather than
// a sort key or a cache key.
var strongKeyWords = wordlists.List("secret_key_words")

// classify splits a name into words (snake_case, kebab-case, dotted,
// CamelCase) and reads its last words.
func classify(name string) nameClass {
	var w [3]string // last, second to last, third to last
	n := 0
	public := false
	eachWord(name, func(word string) {
		w[2], w[1], w[0] = w[1], w[0], word
		n++
		if strings.EqualFold(word, "public") || strings.EqualFold(word, "pub") ||
			strings.EqualFold(word, "publishable") || strings.EqualFold(word, "pubkey") {
			public = true
		}
	})
	eq := strings.EqualFold
	switch {
	case n == 0 || public:
		return notSecret
	case hasSuffixFold(w[0], "password") || hasSuffixFold(w[0], "passwd") || hasSuffixFold(w[0], "passphrase"):
		return passwordName
	case n >= 2 && (eq(w[0], "pwd") || eq(w[0], "pass")):
		return passwordName
	case hasSuffixFold(w[0], "token") || hasSuffixFold(w[0], "secret") || hasSuffixFold(w[0], "apikey") ||
		eq(w[0], "secretkey") || eq(w[0], "accesskey") || eq(w[0], "privatekey") || eq(w[0], "authkey"):
		return secretName
	case eq(w[0], "key"):
		if n >= 2 && slices.ContainsFunc(strongKeyWords, func(s string) bool { return eq(s, w[1]) }) {
			return secretName
		}
		return weakName
	case eq(w[0], "base") && eq(w[1], "key") && eq(w[2], "secret"): // Rails' secret_key_base
		return secretName
	case (eq(w[0], "id") || eq(w[0], "ids")) && n >= 2 &&
		(eq(w[1], "key") || hasSuffixFold(w[1], "token") || hasSuffixFold(w[1], "secret") || hasSuffixFold(w[1], "apikey")):
		return idName
	}
	return notSecret
}

// awsSecretName is aws_secret_access_key and its spellings
// (AWS_SECRET_ACCESS_KEY, SecretAccessKey, aws_secret_key).
func awsSecretName(name string) bool {
	var w [3]string
	eachWord(name, func(word string) { w[2], w[1], w[0] = w[1], w[0], word })
	eq := strings.EqualFold
	return eq(w[0], "key") && (eq(w[1], "access") && eq(w[2], "secret") ||
		eq(w[1], "secret") && strings.Contains(strings.ToLower(name), "aws"))
}

// eachWord calls fn for each word of an identifier, splitting at _ - . and
// at CamelCase boundaries ("APIKey" is API, Key; "dbPassword" is db,
// Password).
func eachWord(name string, fn func(string)) {
	start := -1
	for i := 0; i <= len(name); i++ {
		if i == len(name) || name[i] == '_' || name[i] == '-' || name[i] == '.' {
			if start >= 0 {
				fn(name[start:i])
			}
			start = -1
			continue
		}
		if start >= 0 && isUpper(name[i]) && (isLower(name[i-1]) || isDigit(name[i-1]) ||
			isUpper(name[i-1]) && i+1 < len(name) && isLower(name[i+1])) {
			fn(name[start:i])
			start = i
		}
		if start < 0 {
			start = i
		}
	}
}

// assignments finds literal values assigned to secret-sounding names, in
// the forms memories quote: .env and shell (NAME=value, export NAME="v"),
// YAML (name: value), JSON ("name": "v"), code (name = "v", name := "v",
// 'name' => 'v'), URL queries (?access_token=v), flags (--password=v),
// headers ("X-Api-Key: v") and prose ("my password is hunter2!").
//
// The value is a literal only when it is written out: not empty, not a
// reference (${VAR}, $VAR, {{ … }}, process.env.X, os.Getenv(…), another
// variable's NAME) and not a placeholder (changeme, xxx, your-key-here,
// <…>). See valueAfter for where a value ends.
func assignments(text string, add func(string, int, int)) {
	for i := 0; i < len(text); i++ {
		if text[i] != '=' && text[i] != ':' && text[i] != ' ' {
			continue
		}
		opEnd, mode, ok := operator(text, i)
		if !ok {
			continue
		}
		name, open := nameBefore(text, i)
		if name == "" {
			continue
		}
		class := classify(name)
		if class == notSecret || mode == proseWord && class != passwordName && class != secretName {
			continue
		}
		s, e, quoted := valueAfter(text, opEnd, mode, open)
		if s == e {
			continue
		}
		v := text[s:e]
		if !literal(v, quoted) || nameWord(name, v) {
			continue
		}
		if mode == proseWord && !quoted && (!endsClause(text, e) || !unlikeWord(v)) {
			continue
		}
		switch {
		case class == passwordName && len(v) >= 4:
			add(kindPassword, s, e)
		case class == secretName && len(v) == 40 && awsSecretName(name) && isBase64Std(v):
			add(kindAWSSecret, s, e)
		case class == secretName && len(v) >= 8:
			add(kindSecret, s, e)
		case (class == weakName || class == idName) && looksRandom(v, class == idName || strings.EqualFold(name, "key")):
			add(kindEntropy, s, e)
		}
	}
}

// valueMode says where a value after an operator ends.
type valueMode int

const (
	// word: after a tight NAME=value, the value is the next word.
	wordValue valueMode = iota
	// line: after ": ", a spaced "=", ":=" or "=>", the value is the rest
	// of the line, and a rest of line with spaces in it is prose
	// ("Password: ask Maria"), not a value.
	line
	// proseWord: after "NAME is" or "NAME was", the next word, if it does
	// not read as a word ("the password is stored in Vault").
	proseWord
)

// operator reads the assignment operator at text[i] (= := : => " is "
// " was ") and returns where it ends and how to read the value.
// Comparisons (==, !=, <=, >=, =~), "::" and the colon of "https://" are not
// operators; a YAML or JSON colon must be followed by a space or a quote.
func operator(text string, i int) (end int, mode valueMode, ok bool) {
	var prev, next byte
	if i > 0 {
		prev = text[i-1]
	}
	if i+1 < len(text) {
		next = text[i+1]
	}
	switch text[i] {
	case ' ':
		for _, w := range []string{"is ", "was "} {
			if strings.HasPrefix(text[i+1:], w) {
				return i + 1 + len(w), proseWord, true
			}
		}
		return 0, 0, false
	case '=':
		switch {
		case prev != 0 && strings.IndexByte("=!<>:+-*/%&|^~", prev) >= 0:
			return 0, 0, false
		case next == '=' || next == '~':
			return 0, 0, false
		case next == '>':
			return i + 2, line, true
		case prev == ' ' || prev == '\t' || next == ' ' || next == '\t':
			return i + 1, line, true
		}
		return i + 1, wordValue, true
	}
	switch {
	case next == '=':
		return i + 2, line, true
	case prev == ':' || next == ':':
		return 0, 0, false
	case next == ' ' || next == '\t' || next == '"' || next == '\'':
		return i + 1, line, true
	}
	return 0, 0, false
}

// nameBefore returns the identifier in front of the operator at text[i],
// allowing spaces and a closing quote between them ("api_key" : …). When
// the name opens a quoted string instead ("X-Api-Key: v" in a curl line),
// open is that quote, which then ends the value.
func nameBefore(text string, i int) (name string, open byte) {
	j := i
	for j > 0 && i-j < 8 && (text[j-1] == ' ' || text[j-1] == '\t') {
		j--
	}
	closed := j > 0 && (text[j-1] == '"' || text[j-1] == '\'')
	if closed {
		j--
	}
	end := j
	for j > 0 && end-j < 128 && (isAlnum(text[j-1]) || text[j-1] == '_' || text[j-1] == '-' || text[j-1] == '.') {
		j--
	}
	if j > 0 && end-j == 128 {
		return "", 0 // an over-long run is data, not a name
	}
	if !closed && j > 0 && (text[j-1] == '"' || text[j-1] == '\'') {
		open = text[j-1]
	}
	name = text[j:end]
	for k := 0; k < len(name); k++ {
		if isLetter(name[k]) {
			return name, open
		}
	}
	return "", 0
}

// maxValueLen bounds how far an unquoted value is read, so that a text of
// nothing but "password=password=…" stays linear; a longer value is cut,
// which still reports it.
const maxValueLen = 256

// valueAfter returns the span of the value that starts at or after i and
// whether it was quoted. An unquoted value also ends at open, the quote
// that opened the name.
func valueAfter(text string, i int, mode valueMode, open byte) (s, e int, quoted bool) {
	i = skipSpace(text, i)
	if i >= len(text) {
		return i, i, false
	}
	if q := text[i]; q == '"' || q == '\'' || q == '`' {
		return i + 1, quotedEnd(text, i+1, q), true
	}
	e = i
	limit := min(len(text), i+maxValueLen)
	if open != 0 {
		if k := strings.IndexByte(text[i:limit], open); k >= 0 {
			limit = i + k
		}
	}
	if mode == wordValue || mode == proseWord {
		// A shell word ends at ; & | too; a word in prose only at a space.
		stop, trail := " \t\r\n\"'`;&|", ".,)"
		if mode == proseWord {
			stop, trail = " \t\r\n\"'`", ".,);:!?"
		}
		for e < limit && strings.IndexByte(stop, text[e]) < 0 {
			// "=" inside a word starts another assignment
			// (a=b=c), except as base64 padding at its end.
			if text[e] == '=' && mode == wordValue && e+1 < limit && text[e+1] != '=' && strings.IndexByte(stop, text[e+1]) < 0 {
				break
			}
			e++
		}
		for e > i && strings.IndexByte(trail, text[e-1]) >= 0 {
			e--
		}
		return i, e, false
	}
	for e < limit && text[e] != '\n' && text[e] != ' ' && text[e] != '\t' {
		e++
	}
	// Only blanks or a comment may follow the value on its line (or the
	// value runs past maxValueLen, and is cut).
	if j := skipSpace(text, e); j > e && j < len(text) && text[j] != '\n' && text[j] != '\r' && text[j] != '#' {
		return i, i, false // prose after a colon, not a value
	}
	return i, i + len(strings.TrimRight(text[i:e], "\r,;")), false
}

// endsClause reports whether a value read after "is" ends its clause
// ("… is hunter2." but not "… is SHA-256 hashed"): in prose, a password is
// the last thing said.
func endsClause(text string, e int) bool {
	return e == len(text) || strings.IndexByte(".,;:!?)\r\n", text[e]) >= 0
}

// unlikeWord reports whether a value after "is" reads as a password rather
// than as a word: six or more characters mixing letters with digits or
// symbols (a hyphen or an underscore alone makes a compound word, as in
// "short-lived").
func unlikeWord(v string) bool {
	if len(v) < 6 {
		return false
	}
	letters, others := 0, 0
	for i := 0; i < len(v); i++ {
		switch {
		case isLetter(v[i]):
			letters++
		case v[i] != '-' && v[i] != '_':
			others++
		}
	}
	return letters > 0 && others > 0
}

// quotedEnd returns the index of the closing quote q at or after i,
// honouring backslash escapes, or the end of the line if it is not closed.
func quotedEnd(text string, i int, q byte) int {
	for ; i < len(text) && text[i] != '\n'; i++ {
		switch text[i] {
		case '\\':
			i++
		case q:
			return i
		}
	}
	return min(i, len(text))
}

// literal reports whether a value is written out rather than referenced or
// left as a placeholder. Unquoted values are also not expressions
// (os.Getenv("X"), cfg.Token, another variable's NAME).
//
// A URL is not a literal here: a password inside it is urlPasswords'
// business, and op://, vault:// and the like are references to a secret
// kept elsewhere, as are ARNs and sops' ENC[…].
func literal(v string, quoted bool) bool {
	if placeholder(v) || strings.Contains(v, "://") {
		return false
	}
	l := strings.ToLower(v)
	for _, p := range []string{"arn:", "env:", "vault:", "enc["} {
		if strings.HasPrefix(l, p) {
			return false
		}
	}
	if quoted {
		return true
	}
	// YAML tags, anchors and aliases (!vault, &x, *x), a home path, a
	// comment.
	if strings.IndexByte("!&*~#", v[0]) >= 0 {
		return false
	}
	return !strings.ContainsAny(v, "()[]{}") && !dottedRef(v) && !envName(v)
}

// dottedRef is a.b.c made of identifiers without digits (config.secret,
// process.env.TOKEN, settings.API_KEY): a reference in code, not a value.
func dottedRef(v string) bool {
	if !strings.Contains(v, ".") {
		return false
	}
	for seg := range strings.SplitSeq(v, ".") {
		if seg == "" || !(isLetter(seg[0]) || seg[0] == '_') {
			return false
		}
		for i := 0; i < len(seg); i++ {
			if !isLetter(seg[i]) && seg[i] != '_' {
				return false
			}
		}
	}
	return true
}

// envName is another variable's name (TOKEN=GITHUB_TOKEN).
func envName(v string) bool {
	if !strings.Contains(v, "_") {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !isUpper(v[i]) && !isDigit(v[i]) && v[i] != '_' {
			return false
		}
	}
	return true
}

// nameWord reports whether the value is one of the name's own words
// (POSTGRES_PASSWORD=postgres, "password": "password"): a value anyone
// could guess from the name is no secret.
func nameWord(name, v string) bool {
	found := false
	eachWord(name, func(w string) { found = found || strings.EqualFold(w, v) })
	return found
}

// looksRandom is the high-entropy test for names that hold secrets only
// sometimes, and for bearer tokens. Entropy alone cannot tell a short random
// string from a short string of distinct letters ("user:1234:profile"
// measures 3.7 bits per byte), so the value must also not be made of words:
// cut at every change of case or digit (userProfile2024 is user, Profile,
// 2024), random text averages under three characters a piece, names and ids
// well over. For ids and a bare "key", a hex string or a UUID is a hash, a
// fingerprint or an id, not a secret.
func looksRandom(v string, hexIsID bool) bool {
	if len(v) < minEntropyLen || strings.ContainsAny(v, " \t") {
		return false
	}
	if isHex(strings.ReplaceAll(v, "-", "")) {
		// Hex carries at most 4 bits a character and splits into short
		// pieces even when it is a word (deadbeef), so it gets its own bar.
		return !hexIsID && charClasses(v) >= 2 && entropy(v) >= hexEntropyThreshold
	}
	return charClasses(v) >= 2 && entropy(v) >= entropyThreshold && meanPiece(v) < 3
}

// meanPiece is the average length of the runs of letters and digits in v,
// a capitalised word counting as one run.
func meanPiece(v string) float64 {
	pieces, n := 0, 0
	for i := 0; i < len(v); {
		j := i + 1
		switch c := v[i]; {
		case isDigit(c):
			for j < len(v) && isDigit(v[j]) {
				j++
			}
		case isLower(c) || isUpper(c) && j < len(v) && isLower(v[j]):
			for j < len(v) && isLower(v[j]) {
				j++
			}
		case isUpper(c):
			for j < len(v) && isUpper(v[j]) && !(j+1 < len(v) && isLower(v[j+1])) {
				j++
			}
		default:
			i++
			continue
		}
		pieces++
		n += j - i
		i = j
	}
	if pieces == 0 {
		return 0
	}
	return float64(n) / float64(pieces)
}

// exampleMarks are what documentation and templates put in a value that is
// not real.
var exampleMarks = wordlists.List("secret_example_marks")

// placeholderWords are whole values that stand in for a secret.
var placeholderWords = wordlists.List("secret_placeholders")

// placeholder reports whether a value only stands in for a secret.
func placeholder(v string) bool {
	if v == "" || sameChar(v) {
		return true
	}
	switch v[0] {
	case '$', '<', '{', '%', '[':
		return true
	}
	l := strings.ToLower(v)
	if strings.HasPrefix(l, "your") || slices.Contains(placeholderWords, l) {
		return true
	}
	return exampleMarked(l)
}

// exampleMarked reports whether s says it is an example (AWS's documented
// keys end in EXAMPLE; templates say dummy, fake, xxxx, your-…).
func exampleMarked(s string) bool {
	l := strings.ToLower(s)
	for _, m := range exampleMarks {
		if strings.Contains(l, m) {
			return true
		}
	}
	return false
}

// resolve keeps one candidate per secret: the most specific kind wins any
// overlap. Candidates are taken rank by rank, each rank merged into the
// disjoint, sorted list of those kept so far, so the work stays linear in
// the number of candidates (times the number of kinds) even for a text
// made of nothing but tokens.
func resolve(cs []candidate) []candidate {
	slices.SortFunc(cs, func(a, b candidate) int {
		if a.rank != b.rank {
			return a.rank - b.rank
		}
		return a.start - b.start
	})
	var kept []candidate
	for len(cs) > 0 {
		n := 1
		for n < len(cs) && cs[n].rank == cs[0].rank {
			n++
		}
		group := cs[:n]
		cs = cs[n:]
		merged := make([]candidate, 0, len(kept)+len(group))
		k := 0
		for _, c := range group {
			for k < len(kept) && kept[k].end <= c.start {
				merged = append(merged, kept[k])
				k++
			}
			if k < len(kept) && kept[k].start < c.end {
				continue // overlaps a more specific match kept before
			}
			if len(merged) > 0 && merged[len(merged)-1].end > c.start {
				continue // overlaps one kept just before it
			}
			merged = append(merged, c)
		}
		kept = append(merged, kept[k:]...)
	}
	return kept
}

// locate turns sorted candidates into findings with line and column.
func locate(text string, cs []candidate) []Finding {
	if len(cs) == 0 {
		return nil
	}
	out := make([]Finding, 0, len(cs))
	line, lineStart, pos := 1, 0, 0
	for _, c := range cs {
		for ; pos < c.start; pos++ {
			if text[pos] == '\n' {
				line++
				lineStart = pos + 1
			}
		}
		out = append(out, Finding{
			Kind:   c.kind,
			Offset: c.start,
			Line:   line,
			Column: utf8.RuneCountInString(text[lineStart:c.start]) + 1,
		})
	}
	return out
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / float64(len(s))
			h -= p * math.Log2(p)
		}
	}
	return h
}

// charClasses counts which of upper case, lower case and digits occur in s.
func charClasses(s string) int {
	var u, l, d int
	for i := 0; i < len(s); i++ {
		switch {
		case isUpper(s[i]):
			u = 1
		case isLower(s[i]):
			l = 1
		case isDigit(s[i]):
			d = 1
		}
	}
	return u + l + d
}

func sameChar(s string) bool {
	if s == "" {
		return true
	}
	l := strings.ToLower(s)
	return strings.Count(l, l[:1]) == len(l)
}

func skipSpace(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	return i
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && strings.EqualFold(s[len(s)-len(suffix):], suffix)
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) && !('a' <= s[i] && s[i] <= 'f') && !('A' <= s[i] && s[i] <= 'F') {
			return false
		}
	}
	return true
}

func isBase64Std(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) && s[i] != '+' && s[i] != '/' {
			return false
		}
	}
	return true
}

func isUpper(c byte) bool  { return 'A' <= c && c <= 'Z' }
func isLower(c byte) bool  { return 'a' <= c && c <= 'z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return isUpper(c) || isLower(c) }
func isAlnum(c byte) bool  { return isLetter(c) || isDigit(c) }
