package screen

import "strings"

// Secrets returns the secrets in text, sorted by offset, one finding per
// secret: where several checks match the same bytes only the most specific
// kind is reported. It recognises provider tokens by their shape (AWS,
// GitHub, GitLab, Slack, Stripe, OpenAI, Anthropic, Google, Hugging Face,
// PyPI), private key blocks, JWTs, GCP service-account keys, passwords in
// URLs (with any punctuation in them), literal values assigned to names
// that say they hold a secret (DB_PASSWORD=…, "api_key": "…", token: …),
// passwords and keys stated in English or Spanish prose ("the admin
// password is …", "la contraseña … es …", "API key 3f9a…"), passwords on
// command lines (sshpass -p, mysql -p…, curl -u, docker login -p) and
// encoded credentials (a docker "auth", HTTP Basic).
//
// It screens the text as written and as a reader sees it (see fold): with
// invisible characters removed, confusable and full-width letters folded,
// HTML entities and URL escapes decoded, Markdown emphasis dropped; with
// what line breaks and spaces split joined again (see scanJoined); and
// with base64 and hex of plausible length decoded. A finding is placed where its
// secret starts in the original text.
//
// Values clearly marked as examples or placeholders (EXAMPLE, dummy,
// <password>, ${VAR}, changeme, xxx…) are not secrets, nor are public keys,
// hashes, UUIDs, prose about a password policy or a variable's name
// mentioned without a value.
//
// It never returns the secret itself.
func Secrets(text string) []Finding {
	return locate(text, resolve(screenViews(text, 0)))
}

// screenViews returns the candidates of every view of text, placed in it.
// depth counts the base64 decodings that led to text.
func screenViews(text string, depth int) []candidate {
	cs := scan(text)
	f := fold(text)
	for _, p := range f.around() {
		found := scan(f.text[p[0]:p[1]])
		for i := range found {
			found[i].start += p[0]
			found[i].end += p[0]
		}
		cs = append(cs, placed(found, f)...)
	}
	j := join(f, false)
	if len(j.text) != len(f.text) {
		cs = append(cs, placed(scanJoined(j.text, f.text, j.from), f)...)
	}
	if strings.Contains(f.text, "-\n") || strings.Contains(f.text, "-\r\n") {
		h := join(f, true)
		cs = append(cs, placed(scanJoined(h.text, f.text, h.from), f)...)
	}
	if depth == 0 {
		cs = append(cs, reversedTokens(f)...)
		cs = append(cs, lowerAWS(f.text, f)...)
	}
	if depth < maxDecodeDep {
		for _, v := range []view{f, f.compose(j)} {
			decoded := func(s, e int, decoded string) {
				found := screenViews(decoded, depth+1)
				if len(found) == 0 {
					return
				}
				best := found[0]
				for _, c := range found {
					if c.rank < best.rank {
						best = c
					}
				}
				os, oe := v.span(s, e)
				cs = append(cs, candidate{kind: best.kind, rank: best.rank, start: os, end: oe})
			}
			base64Runs(v.text, decoded)
			hexRuns(v.text, decoded)
		}
	}
	return cs
}

// placed maps candidates found in view v to the original text.
func placed(cs []candidate, v view) []candidate {
	for i := range cs {
		cs[i].start, cs[i].end = v.span(cs[i].start, cs[i].end)
	}
	return cs
}

func rankOf(kind string) int {
	for i, k := range kindOrder {
		if k == kind {
			return i
		}
	}
	return len(kindOrder)
}

// scanJoined looks for shaped tokens in the joined view j of the folded
// text f (from maps j to f). Joining glues prose into long words too
// ("ghp_ tokens are …" becomes "ghp_tokensare…"), so a match counts only
// when the join made it (a break falls inside its shortest body), it
// starts a word of f, and that shortest body reads as random rather than
// as words glued together.
func scanJoined(j, f string, from []int) []candidate {
	var cs []candidate
	for _, p := range tokenPatterns {
		if p.body == 0 {
			continue
		}
		for _, m := range p.re.FindAllStringIndex(j, -1) {
			s, e := m[0], m[1]
			core := min(e, s+p.fixed+p.body)
			fs := from[s]
			if fs > 0 && isAlnum(f[fs-1]) || from[core-1]-fs == core-1-s {
				continue
			}
			tok, body := j[s:core], j[s+p.fixed:core]
			if exampleMarked(tok) || sameChar(body) {
				continue
			}
			shaped := p.shape != nil && p.shape.MatchString(j[s:])
			if !shaped && (charClasses(body) < p.classes || !randomBody(body)) {
				continue
			}
			if p.check != nil && !p.check(j, s, e) {
				continue
			}
			cs = append(cs, candidate{kind: p.kind, rank: rankOf(p.kind), start: fs, end: from[core-1] + 1})
		}
	}
	return cs
}

// randomBody tells a token's body from words glued together: random text
// cut at every change of case or digit is short pieces and mixes letters
// with digits; glued words are long pieces, and capitals without digits.
func randomBody(b string) bool {
	lower := false
	letters, digitsN := 0, 0
	for i := 0; i < len(b); i++ {
		switch {
		case isLower(b[i]):
			lower = true
			letters++
		case isUpper(b[i]):
			letters++
		case isDigit(b[i]):
			digitsN++
		}
	}
	if !lower {
		return letters > 0 && digitsN > 0
	}
	return meanPiece(b) < 3 && entropy(b) >= 3.0
}
