package screen

import (
	"encoding/base64"
	"regexp"
	"slices"
	"strings"

	wordlists "github.com/ihmt-dev/ihmt/pkg/lexicon/words"
)

// A password said in a sentence has no variable name in front of it: "the
// admin password is hunter2", "la contraseña del router es mariposa",
// "login with user admin and password Qwerty123", "use Sunsh1ne#7 as the
// VPN password", "API key 3f9a…". Prose about passwords is just as common
// ("the password is rotated every 90 days", "la contraseña es
// obligatoria"), so a value counts only when it is the last thing its
// clause says and does not read as a word of policy: a function word, an
// adjective or a participle (rotated, required, obligatoria), a number of
// characters, a date, a hash algorithm.

// word is one white-space separated word of a text.
type word struct {
	s, e int    // its span in the text
	raw  string // as written
	low  string // lower case, without the punctuation around it
	nl   bool   // a line break comes before it
	stop bool   // it ends its clause (. , ; ! ? or a colon at its end)
}

func words(text string) []word {
	ws := make([]word, 0, len(text)/5+1)
	nl := false
	for i := 0; i < len(text); {
		c := text[i]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			nl = nl || c == '\n'
			i++
			continue
		}
		j := i
		for j < len(text) && text[j] != ' ' && text[j] != '\t' && text[j] != '\r' && text[j] != '\n' {
			j++
		}
		raw := text[i:j]
		core := strings.TrimRight(raw, ".,;:!?)")
		ws = append(ws, word{s: i, e: j, raw: raw, nl: nl, stop: len(core) < len(raw), low: lower(strings.TrimLeft(core, "([\"'`"))})
		nl = false
		i = j
	}
	return ws
}

// lower is strings.ToLower without the copy for a word already in lower
// case, which most words are.
func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; isUpper(c) || c >= 0x80 {
			return strings.ToLower(s)
		}
	}
	return s
}

// What a prose keyword names.
const (
	proseNone = iota
	prosePassword
	proseKey
	prosePIN          // a PIN: only digits are its value
	proseWeakPassword // a word that names a password only sometimes: only a value mixing letters with digits or symbols
)

// proseKeyword reads a keyword at ws[i]: a password's or an API key's name
// in English or Spanish (folded spellings too: contrasena), and returns its
// class and the index of the word after it.
func proseKeyword(ws []word, i int) (int, int) {
	w := unleet(ws[i].low)
	next := func(k int) string {
		if i+k < len(ws) {
			return ws[i+k].low
		}
		return ""
	}
	switch w {
	case "password", "passwd", "passphrase", "passcode", "contraseña", "contrasena", "senha", "pw", "pwd":
		return prosePassword, i + 1
	case "pin":
		return prosePIN, i + 1
	case "clave", "llave":
		switch {
		case next(1) == "de" && (next(2) == "la" && next(3) == "api" || next(2) == "api"):
			return proseKey, i + 3 + b2i(next(2) == "la")
		case next(1) == "api" || next(1) == "secreta":
			return proseKey, i + 2
		case next(1) == "de" && next(2) == "acceso":
			return prosePassword, i + 3
		}
		if w == "clave" {
			// "La clave es …" is as often "the key point is" as "the
			// password is": bare, only a value that cannot be a word counts.
			if n := next(1); n == "es" || n == "era" || n == "fue" {
				return proseWeakPassword, i + 1
			}
			return prosePassword, i + 1
		}
	case "api", "access", "auth", "secret", "signing", "client", "app", "bearer":
		if n := next(1); n == "key" || n == "token" || n == "secret" {
			return proseKey, i + 2
		}
		if w == "secret" {
			return proseKey, i + 1
		}
	case "apikey", "api-key", "api_key", "token":
		return proseKey, i + 1
	}
	return proseNone, i
}

// unleet reads a keyword spelt with digits and symbols for letters
// (p@ssw0rd, p4ssword, c0ntr4seña) as its letters.
func unleet(w string) string {
	if !strings.ContainsAny(w, "0134578@$!|") {
		return w
	}
	return leet.Replace(w)
}

var leet = strings.NewReplacer("0", "o", "1", "i", "3", "e", "4", "a", "5", "s", "7", "t", "8", "b", "@", "a", "$", "s", "!", "i", "|", "l")

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// proseBlockers are words that, between a keyword and its value or just
// before the keyword, show the sentence is about the password rather than
// saying it (its policy, length, hash, manager; what it must be).
var proseBlockers = wordlists.List("secret_prose_blockers")

// proseCopulas end the stretch between a keyword and its value.
var proseCopulas = wordlists.List("secret_prose_copulas")

// proseLinks are verbs that take the value after a preposition ("changed
// to", "quedó en").
var proseLinks = wordlists.List("secret_prose_links")

// proseAdverbs may stand between a copula and the value.
var proseAdverbs = wordlists.List("secret_prose_adverbs")

// proseStopwords are values that are words of a sentence, not passwords.
var proseStopwords = wordlists.List("secret_prose_stopwords")

// proseSuffixes are endings of adjectives, participles and adverbs
// (rotated, mandatory, obligatoria, cambiada): a value of letters only that
// ends in one is a word of policy, not a password.
var proseSuffixes = wordlists.List("secret_prose_suffixes")

// proseConnectives may follow a value that ends its clause ("… is X and …",
// "… es X y …") or a value with digits or symbols ("… is Tr0ub4dor for
// staging").
var proseConnectives = wordlists.List("secret_prose_connectives")

var (
	dateLike     = regexp.MustCompile(`^\d{1,4}(?:[-/:.]\d{1,4})*$`)
	unitLike     = regexp.MustCompile(`^\d+[a-z]{1,10}$`)
	algorithmish = regexp.MustCompile(`^(?:sha|aes|md|rsa|hs|rs|es|ps|argon|bcrypt|scrypt|pbkdf|utf|base)[-_]?\d*[a-z0-9]*$`)
)

// prosePasswords finds passwords and keys stated in sentences.
func prosePasswords(text string, ws []word, add func(string, int, int)) {
	for i := range ws {
		class, k := proseKeyword(ws, i)
		if class == proseNone || blockedBefore(ws, i) {
			continue
		}
		kind := kindPassword
		if class == proseKey {
			kind = kindSecret
		}
		if s, e, ok := proseValue(text, ws, i, k, class); ok {
			add(kind, s, e)
			continue
		}
		if s, e, ok := useAs(text, ws, i, class); ok {
			add(kind, s, e)
		}
	}
}

// blockedBefore reports whether a blocker stands among the three words
// before the keyword at ws[i], in its clause ("the length of the password
// is 12").
func blockedBefore(ws []word, i int) bool {
	for k := i - 1; k >= 0 && k >= i-3; k-- {
		if ws[k].stop || ws[k+1].nl {
			return false
		}
		if slices.Contains(proseBlockers, ws[k].low) {
			return true
		}
	}
	return false
}

// proseValue reads the value after a keyword whose words end at k: after a
// copula within eight words of the clause ("password for the staging box
// is …", "contraseña: …"), or right after the keyword when the value is
// unmistakable ("and password Qwerty123").
func proseValue(text string, ws []word, i, k, class int) (int, int, bool) {
	strict := true // no copula: only a value that cannot be a word
	at := k
	if strings.HasSuffix(ws[k-1].raw, ":") {
		strict = false
	} else {
		for n := k; n < len(ws) && n < k+8; n++ {
			if ws[n].nl || slices.Contains(proseBlockers, ws[n].low) {
				break
			}
			if slices.Contains(proseCopulas, ws[n].low) {
				at, strict = n+1, false
				break
			}
			if slices.Contains(proseLinks, ws[n].low) && n+1 < len(ws) && slices.Contains([]string{"to", "a", "en", "como"}, ws[n+1].low) {
				at, strict = n+2, false
				break
			}
			if strings.HasSuffix(ws[n].raw, ":") {
				at, strict = n+1, false
				break
			}
			if ws[n].stop {
				break
			}
		}
	}
	for !strict && at < len(ws) && slices.Contains(proseAdverbs, ws[at].low) && !ws[at].stop {
		at++
	}
	if at >= len(ws) || ws[at].nl && strict {
		return 0, 0, false
	}
	return valueWord(text, ws, at, class, strict, false)
}

// useVerbs take a value as a secret; useAsWords say what as; clauseEnds
// end the clause a value stands in.
var (
	clauseEnds = wordlists.Set("secret_clause_ends")
	useVerbs   = wordlists.Set("secret_use_verbs")
	useAsWords = wordlists.Set("secret_as")
)

// useAs reads "use X as the (VPN) password" and "usa X como contraseña".
func useAs(text string, ws []word, i, class int) (int, int, bool) {
	for k := i - 1; k >= 2 && k >= i-3; k-- {
		if !useAsWords[ws[k].low] {
			continue
		}
		if !useVerbs[ws[k-2].low] {
			return 0, 0, false
		}
		return valueWord(text, ws, k-1, class, true, true)
	}
	return 0, 0, false
}

// valueWord decides whether ws[at] is the value: quoted, it is (unless a
// placeholder); unquoted, it must end its clause and not read as a word
// of policy; strict, it must mix letters with digits or symbols.
func valueWord(text string, ws []word, at, class int, strict, framed bool) (int, int, bool) {
	w := ws[at]
	if q := w.raw[0]; q == '"' || q == '\'' || q == '`' {
		s := w.s + 1
		e := quotedEnd(text, s, q)
		v := text[s:e]
		if len(v) >= 4 && !placeholder(v) && !exampleMarked(v) && !strings.HasPrefix(v, "$") {
			return s, e, true
		}
		return 0, 0, false
	}
	v := strings.TrimRight(w.raw, ".,;:!?)")
	if class == prosePassword && w.stop && strings.HasSuffix(w.raw, "!") && len(w.raw)-len(v) == 1 && len(v) > 0 && !isAlnum(v[len(v)-1]) {
		v = w.raw // keep a password's own punctuation before a "!"
	}
	lv := strings.ToLower(v)
	if len(v) < 4 || !literal(v, false) || placeholder(v) || strings.HasPrefix(v, "$") ||
		slices.Contains(proseStopwords, lv) || strings.Contains(lv, "'s") ||
		dateLike.MatchString(lv) || unitLike.MatchString(lv) || algorithmish.MatchString(lv) {
		return 0, 0, false
	}
	ends := w.stop || at+1 == len(ws) || ws[at+1].nl ||
		clauseEnds[ws[at+1].low]
	// A value that mixes letters with digits or symbols may be followed by
	// anything but a participle or adjective that says what it is
	// ("SHA-256 hashed", "WPA2 protected").
	goesOn := ends || framed || slices.Contains(proseConnectives, ws[at+1].low)
	described := !ends && hasSuffixAny(ws[at+1].low, proseSuffixes)
	letters, digitsN, others, innerUpper := 0, 0, 0, false
	for k := 0; k < len(v); k++ {
		switch c := v[k]; {
		case isLetter(c):
			letters++
			innerUpper = innerUpper || k > 0 && isUpper(c)
		case isDigit(c):
			digitsN++
		default:
			if c < 0x80 {
				others++
			} else {
				letters++
			}
		}
	}
	if class == proseWeakPassword {
		class, strict = prosePassword, true
	}
	if class == prosePIN {
		if letters == 0 && others == 0 && len(v) >= 4 && len(v) <= 12 && ends && !strict {
			return w.s, w.s + len(v), true
		}
		return 0, 0, false
	}
	if class == proseKey {
		if len(v) < 16 || !goesOn {
			return 0, 0, false
		}
		hex := isHex(v) && len(v) >= 32 && digitsN > 0 && letters > 0
		if hex || looksRandom(v, false) || charClasses(v) >= 2 && digitsN > 0 && len(v) >= 20 && meanPiece(v) < 3 {
			return w.s, w.s + len(v), true
		}
		return 0, 0, false
	}
	mixed := letters > 0 && (digitsN > 0 || others > 0 && strings.Trim(v, "-_") == v && !onlyHyphens(v))
	switch {
	case letters == 0 && others == 0: // digits only: a PIN-like password, not "12"
		if len(v) >= 6 && ends && !strict {
			return w.s, w.s + len(v), true
		}
	case mixed || innerUpper:
		if (goesOn || !strict && !described) && (!strict || mixed && len(v) >= 6) {
			return w.s, w.s + len(v), true
		}
	case !strict && ends && !hasSuffixAny(lv, proseSuffixes):
		return w.s, w.s + len(v), true
	}
	return 0, 0, false
}

// onlyHyphens reports whether a word's only non-letters are hyphens or
// underscores joining words (short-lived, per_user).
func onlyHyphens(v string) bool {
	for k := 0; k < len(v); k++ {
		if !isLetter(v[k]) && v[k] != '-' && v[k] != '_' {
			return false
		}
	}
	return true
}

func hasSuffixAny(s string, suffixes []string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

// commandFlags are the commands that take a password as a flag's value:
// the flag, and whether the value is attached (-pSECRET) or the next word.
var commandFlags = map[string][]commandFlag{
	"sshpass":    {{"-p", true}, {"-p", false}},
	"redis-cli":  {{"-a", false}},
	"ldapsearch": {{"-w", false}}, "ldapmodify": {{"-w", false}}, "ldapadd": {{"-w", false}},
	"ldapdelete": {{"-w", false}}, "ldapwhoami": {{"-w", false}}, "ldappasswd": {{"-w", false}},
	"sqlcmd": {{"-P", false}}, "bcp": {{"-P", false}},
	"mongo": {{"-p", false}}, "mongosh": {{"-p", false}}, "mongodump": {{"-p", false}}, "mongorestore": {{"-p", false}},
	"zip": {{"-P", false}}, "unzip": {{"-P", false}},
	"7z": {{"-p", true}}, "7za": {{"-p", true}}, "rar": {{"-p", true}}, "unrar": {{"-p", true}},
	"mysql": {{"-p", true}}, "mysqldump": {{"-p", true}}, "mysqladmin": {{"-p", true}},
	"mariadb": {{"-p", true}}, "mysqlsh": {{"-p", true}}, "mysqlimport": {{"-p", true}},
}

type commandFlag struct {
	flag     string
	attached bool
}

// registryLogins are the tools whose `login -p` takes a password.
var registryLogins = []string{"docker", "podman", "nerdctl", "helm", "buildah", "skopeo"}

// commandPasswords finds passwords given to a command on its line: the
// flags of commandFlags (sshpass -p, mysql -p<password>, redis-cli -a,
// ldapsearch -w, …), --password <password>, docker login -p, curl -u
// user:password, smbclient -U user%password, lftp -u user,password,
// openssl's pass:<password> and htpasswd -b's password.
func commandPasswords(text string, ws []word, add func(string, int, int)) {
	for i := 0; i < len(ws); i++ {
		cmd := strings.Trim(ws[i].low, "`$")
		if i := strings.LastIndexByte(cmd, '/'); i >= 0 {
			cmd = cmd[i+1:] // /usr/bin/mysql
		}
		flags := commandFlags[cmd]
		if cmd == "login" && i > 0 && slices.Contains(registryLogins, ws[i-1].low) {
			flags = []commandFlag{{"-p", false}}
		}
		for _, f := range flags {
			flagValue(text, ws, i, f, add)
		}
		switch cmd {
		case "curl", "wget", "http", "https", "lftp", "smbclient":
			sep := map[string]byte{"lftp": ',', "smbclient": '%'}[cmd]
			if sep == 0 {
				sep = ':'
			}
			for k := i + 1; k+1 < len(ws) && !ws[k+1].nl; k++ {
				if r := ws[k].raw; r == "-u" || r == "-U" || r == "--user" || r == "--proxy-user" {
					s, e := unquote(text, ws[k+1])
					if c := strings.IndexByte(text[s:e], sep); c > 0 {
						addValue(text, s+c+1, e, kindCommandPass, add)
					}
				}
			}
		case "htpasswd":
			htpasswdValue(text, ws, i, add)
		}
		r := ws[i].raw
		if (r == "--password" || r == "--passwd" || r == "--pass") && i+1 < len(ws) && !ws[i+1].nl {
			s, e := unquote(text, ws[i+1])
			if s < e && text[s] != '-' {
				addValue(text, s, e, kindCommandPass, add)
			}
		}
		if (r == "-passin" || r == "-passout" || r == "-pass") && i+1 < len(ws) && strings.HasPrefix(ws[i+1].raw, "pass:") {
			addValue(text, ws[i+1].s+len("pass:"), ws[i+1].e, kindCommandPass, add)
		}
	}
}

// htpasswdValue adds the password of `htpasswd -b [flags] file user
// password`: its third word that is not a flag.
func htpasswdValue(text string, ws []word, i int, add func(string, int, int)) {
	batch, pos := false, 0
	for k := i + 1; k < len(ws) && !ws[k].nl; k++ {
		r := ws[k].raw
		if strings.HasPrefix(r, "-") {
			batch = batch || strings.Contains(r, "b")
			continue
		}
		if pos++; pos == 3 && batch {
			s, e := unquote(text, ws[k])
			addValue(text, s, e, kindCommandPass, add)
			return
		}
	}
}

// flagValue adds the value of f (attached or the next word, as f says) on
// the line of the command at ws[i].
func flagValue(text string, ws []word, i int, f commandFlag, add func(string, int, int)) {
	for k := i + 1; k < len(ws) && !ws[k].nl; k++ {
		r := ws[k].raw
		switch {
		case !f.attached && r == f.flag && k+1 < len(ws) && !ws[k+1].nl:
			s, e := unquote(text, ws[k+1])
			if s < e && text[s] != '-' {
				addValue(text, s, e, kindCommandPass, add)
			}
			return
		case f.attached && strings.HasPrefix(r, f.flag) && len(r) > len(f.flag) && r[len(f.flag)] != '-':
			w := ws[k]
			w.s += len(f.flag)
			w.raw = r[len(f.flag):]
			s, e := unquote(text, w)
			addValue(text, s, e, kindCommandPass, add)
			return
		}
	}
}

// unquote returns the span of a word without the quotes around it.
func unquote(text string, w word) (int, int) {
	if q := w.raw[0]; q == '"' || q == '\'' {
		return w.s + 1, quotedEnd(text, w.s+1, q)
	}
	return w.s, w.e
}

func addValue(text string, s, e int, kind string, add func(string, int, int)) {
	if e-s < 3 {
		return
	}
	v := text[s:e]
	if placeholder(v) || exampleMarked(v) || strings.HasPrefix(v, "$") || strings.HasPrefix(v, "<") {
		return
	}
	add(kind, s, e)
}

var (
	jsonAuth  = regexp.MustCompile(`"auth"\s*:\s*"([A-Za-z0-9+/]{8,}={0,2})"`)
	basicAuth = regexp.MustCompile(`Basic\s+([A-Za-z0-9+/]{8,}={0,2})`)
)

// basicAuths finds user:password pairs in base64 where a credential is
// kept so: a docker config's "auth" and an HTTP Basic header.
func basicAuths(text string, add func(string, int, int)) {
	for _, re := range []*regexp.Regexp{jsonAuth, basicAuth} {
		for _, m := range re.FindAllStringSubmatchIndex(text, -1) {
			raw, err := base64.StdEncoding.DecodeString(text[m[2]:m[3]])
			if err != nil {
				continue
			}
			user, pw, ok := strings.Cut(string(raw), ":")
			if !ok || len(pw) < 3 || placeholder(pw) || pw == user || strings.HasPrefix(pw, "$") {
				continue
			}
			add(kindEncodedCred, m[2], m[3])
		}
	}
}
