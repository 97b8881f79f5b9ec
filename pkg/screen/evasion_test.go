package screen

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// The evasion corpus is what a careless or determined agent writes to get a
// secret past the screen: keys split across lines, by spaces or by Markdown
// emphasis; zero-width and format characters; confusable letters (full
// width, Cyrillic, Greek, mathematical); base64, HTML entities and URL
// escapes; passwords in English and Spanish prose; connection strings with
// punctuation in the password; tool command lines; registry auths; hex
// keys after a label. Every text holds exactly one secret. The look-alikes
// below it must be accepted: they are what an honest memory holds, and
// most of them sit close to one of the evasions.

// Helpers that disguise a text the way an evader would.

// every inserts sep after every n bytes of s.
func every(s string, n int, sep string) string {
	var b strings.Builder
	for i := 0; i < len(s); i += n {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(s[i:min(len(s), i+n)])
	}
	return b.String()
}

// fullWidth maps printable ASCII to its full-width form.
func fullWidth(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r > ' ' && r < 0x7f {
			r += 0xFEE0
		}
		b.WriteRune(r)
	}
	return b.String()
}

// swap replaces the first occurrence of each ASCII letter in pairs with its
// look-alike.
func swap(s string, pairs ...string) string {
	for i := 0; i+1 < len(pairs); i += 2 {
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	return s
}

// mathBold maps ASCII letters and digits to MATHEMATICAL BOLD.
func mathBold(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case 'A' <= r && r <= 'Z':
			r = 0x1D400 + (r - 'A')
		case 'a' <= r && r <= 'z':
			r = 0x1D41A + (r - 'a')
		case '0' <= r && r <= '9':
			r = 0x1D7CE + (r - '0')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func htmlDec(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, "&#%d;", r)
	}
	return b.String()
}

func htmlHex(s string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, "&#x%x;", r)
	}
	return b.String()
}

func pctAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

func b64s(s string) string         { return base64.StdEncoding.EncodeToString([]byte(s)) }
func b64u(s string) string         { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
func zw(s string, r string) string { return every(s, 5, r) }

// evasionCorpus is what must be refused: one secret in each text, of any
// kind.
func evasionCorpus() []secretCase {
	ghp := "ghp_" + fake(401, 36, b62)
	akia := "AKIA" + fake(402, 16, upperNum)
	ant := "sk-ant-api03-" + fake(403, 60, b64url)
	oai := "sk-proj-" + fake(404, 48, b62)
	stripe := "sk_live_" + fake(405, 24, b62)
	xoxb := "xoxb-" + fake(406, 12, digits) + "-" + fake(407, 13, digits) + "-" + fake(408, 24, b62)
	glpat := "glpat-" + fake(409, 20, b62)
	aiza := "AIza" + fake(410, 35, b62)
	hf := "hf_" + fake(411, 34, b62)
	pat := "github_pat_" + fake(412, 22, b62) + "_" + fake(413, 59, b62)
	pw := fake(414, 14, b62)
	hex32 := fake(415, 32, hexLower)
	hex40 := fake(416, 40, hexLower)
	hex64 := fake(417, 64, hexLower)
	return []secretCase{
		// Split across lines, by spaces, by Markdown emphasis or markup.
		{name: "github token split over two lines", text: "bot token:\n" + ghp[:18] + "\n" + ghp[18:] + "\n(rotate in May)"},
		{name: "github token in groups of four", text: "the deploy token " + every(ghp, 4, " ") + " works for the bot"},
		{name: "aws key id split after its prefix", text: "Key id AKIA\n" + akia[4:] + " for the backup user."},
		{name: "anthropic key split by bold", text: "use " + ant[:20] + "**" + ant[20:40] + "**" + ant[40:]},
		{name: "openai key with italic middle", text: "OPENAI key " + oai[:15] + "*" + oai[15:30] + "*" + oai[30:]},
		{name: "stripe key in two code spans", text: "Stripe: `" + stripe[:14] + "``" + stripe[14:] + "`"},
		{name: "slack token split by strike-through", text: "slack " + xoxb[:20] + "~~" + xoxb[20:] + "~~"},
		{name: "gitlab token split in a quote", text: "> the token is " + glpat[:13] + "\n> " + glpat[13:] + "\n> from Sam"},
		{name: "google key split by a space", text: "Maps: " + aiza[:20] + " " + aiza[20:] + " (browser)"},
		{name: "hugging face token over three lines", text: "HF\n" + every(hf, 13, "\n") + "\nend"},
		{name: "fine-grained pat split by html tags", text: "PAT <b>" + pat[:30] + "</b><i>" + pat[30:] + "</i>"},
		{name: "github token split by crlf", text: "token " + ghp[:25] + "\r\n" + ghp[25:]},
		{name: "aws key in groups of five with tabs", text: "id\t" + every(akia, 5, "\t")},
		{name: "github token wrapped in a list item", text: "- " + ghp[:20] + "\n  " + ghp[20:] + "\n- next"},
		// Zero-width and format characters.
		{name: "github token with zero-width spaces", text: "bot: " + zw(ghp, "\u200b")},
		{name: "aws key with zero-width joiners", text: "AWS " + zw(akia, "\u200d")},
		{name: "stripe key with a byte-order mark", text: "stripe " + zw(stripe, "\ufeff")},
		{name: "slack token with word joiners", text: "slack " + zw(xoxb, "\u2060")},
		{name: "anthropic key with soft hyphens", text: "key " + zw(ant, "\u00ad")},
		{name: "password name with a zero-width space", text: "DB_PASS\u200bWORD=" + pw},
		{name: "private key header with zero-width space", text: strings.Replace(pem("RSA PRIVATE KEY", 418, "\n"), "PRIVATE", "PRI\u200bVATE", 2)},
		{name: "openai key with left-to-right marks", text: "sk: " + zw(oai, "\u200e")},
		{name: "github token with variation selectors", text: zw(ghp, "\ufe0f")},
		// Confusable letters.
		{name: "full-width github token", text: "token " + fullWidth(ghp)},
		{name: "full-width prefix only", text: fullWidth("ghp_") + ghp[4:]},
		{name: "cyrillic A in an aws key", text: "key " + swap(akia, "A", "\u0410")},
		{name: "cyrillic a in the password name", text: "p\u0430ssword=" + pw},
		{name: "cyrillic dze in a stripe key", text: swap(stripe, "s", "\u0455")},
		{name: "greek omicron in a github token name", text: "GITHUB_T\u039fKEN=" + fake(419, 30, b62)},
		{name: "math bold slack token", text: "slack " + mathBold(xoxb)},
		{name: "cyrillic e in a token name", text: "API_K\u0415Y=" + fake(420, 32, b62)},
		{name: "full-width digits in a hugging face token", text: "hf " + hf[:10] + fullWidth(hf[10:20]) + hf[20:]},
		// Encodings.
		{name: "base64 of a github token", text: "token (b64): " + b64s(ghp)},
		{name: "base64 of a password line", text: "config blob " + b64s("DB_PASSWORD="+pw+"\n")},
		{name: "base64 of aws credentials", text: b64s("[default]\naws_access_key_id = " + akia + "\n")},
		{name: "base64url of a slack token", text: "slack=" + b64u(xoxb)},
		{name: "html decimal entities of a github token", text: "<p>" + htmlDec(ghp) + "</p>"},
		{name: "html hex entities of an aws key", text: htmlHex(akia)},
		{name: "html-escaped json api key", text: "{&quot;api_key&quot;: &quot;" + fake(421, 32, b62) + "&quot;}"},
		{name: "url-escaped github token", text: "t=" + pctAll(ghp)},
		{name: "url-escaped password in a form body", text: "body: user%3Dadmin%26password%3D" + pw + "%21"},
		{name: "base64 wrapped at 20 columns", text: "blob:\n" + every(b64s("export STRIPE_KEY="+stripe), 20, "\n")},
		// Passwords in prose, English and Spanish.
		{name: "admin password in prose, no punctuation", text: "the admin password is hunter2 and nobody changed it"},
		{name: "root password for a box", text: "The root password for the staging box is Winter2024! — keep it to yourself"},
		{name: "password changed to", text: "The database password was changed to Pa55word99 yesterday."},
		{name: "login with user and password", text: "Login with user admin and password Qwerty123."},
		{name: "passphrase quoted with spaces", text: `The backup passphrase is "purple monkey dishwasher".`},
		{name: "password of a plain word", text: "The password for dana@acme.dev is dragonfly."},
		{name: "use as the password", text: "Use Sunsh1ne#7 as the VPN password."},
		{name: "es: contraseña del admin", text: "La contraseña del admin es Hunter2024"},
		{name: "es: contraseña de la base en producción", text: "la contraseña de la base de datos en producción es Verano2024! no la compartas"},
		{name: "es: clave del wifi", text: "La clave del wifi es PatoLoco77."},
		{name: "es: contraseña after a colon", text: "Contraseña: gatito123"},
		{name: "es: contraseña quedó en", text: "Tras el cambio, la contraseña quedó en Madrid#2025."},
		{name: "es: usuario y contraseña", text: "Entra con el usuario root y la contraseña Xk9-mQ2p."},
		{name: "es: el password del servidor", text: "El password del servidor es Tr0ub4dor"},
		{name: "es: contraseña de una palabra", text: "la contraseña del router es mariposa"},
		// Connection strings with punctuation in the password.
		{name: "postgres url with a hash", text: "DB: postgres://app:p#ssw0rd!x@db.internal:5432/app"},
		{name: "mysql url with a question mark", text: "mysql://root:abc?123xyz@10.0.0.5/shop"},
		{name: "redis url with a slash", text: "redis://default:S3cr/et99@cache:6379"},
		{name: "ado connection string", text: "Server=db;Database=app;User Id=sa;Password=P@ss#w0rd;"},
		{name: "mongodb url with escapes", text: "mongodb://admin:Pa%23ss%40word9@mongo:27017/admin"},
		{name: "amqp url with an at sign", text: "amqp://orders:r@bbit-" + fake(422, 8, b62) + "@mq:5672/"},
		// Tool command lines.
		{name: "sshpass quoted", text: "deploy: sshpass -p 'S3cure!Pass' ssh deploy@10.0.0.2"},
		{name: "sshpass bare", text: "sshpass -p Hunter2x ssh root@bastion"},
		{name: "mysql -p attached", text: "mysql -u root -pS3cretPass shop"},
		{name: "curl -u user:password", text: "curl -u admin:Adm1nPa55 https://jenkins.acme.dev/api/json"},
		{name: "docker auths", text: `~/.docker/config.json: {"auths": {"registry.acme.dev": {"auth": "` + b64s("bot:"+pw) + `"}}}`},
		{name: "docker login -p", text: "docker login -u bot -p " + pw + " registry.acme.dev"},
		{name: "netrc password", text: "~/.netrc: machine api.acme.dev login bot password " + pw},
		// Hex keys after a label.
		{name: "hex after API key", text: "API key " + hex32},
		{name: "hex after the API key is", text: "The Mailgun API key is " + hex40 + "."},
		{name: "es: hex after clave de la API", text: "clave de la API: " + hex32},
		{name: "es: hex after la clave de API es", text: "La clave de API es " + hex64},
		{name: "hex after api token for", text: "api token for datadog: " + hex32},
		// Combined.
		{name: "zero-width and a line break", text: "tok " + zw(ghp[:20], "\u200b") + "\n" + ghp[20:]},
		{name: "cyrillic in a spanish keyword", text: "la contr\u0430seña es Gatito#99"},
		{name: "full-width password assignment", text: fullWidth("PASSWORD=" + pw)},
		{name: "url-escaped url password with a hash", text: "DATABASE_URL=postgres://app:" + url.PathEscape("s3cr#t!") + "x9@db/app"},
	}
}

// evasionLookAlikes is what must be accepted beside the evasions.
func evasionLookAlikes() []string {
	return []string{
		// Prose about passwords and keys, English and Spanish.
		"The password policy requires 12 characters and a symbol.",
		"The admin password is rotated every 90 days.",
		"The password is stored in 1Password under 'prod db'.",
		"The password is required for sudo on the build box.",
		"The password was reset by Dana on Monday.",
		"Password must contain a digit and a symbol.",
		"The wifi password is on the fridge.",
		"The password is the same as staging, in Vault.",
		"Set the password with `passwd`; never write it down.",
		"the password is SHA-256 hashed with a per-user salt",
		"Use a long passphrase as the disk password.",
		"Login with SSO; the password login is disabled.",
		"La contraseña debe tener al menos 12 caracteres.",
		"La contraseña está en el gestor de contraseñas del equipo.",
		"La contraseña es obligatoria en el formulario de acceso.",
		"La contraseña del admin se cambió el lunes.",
		"La longitud mínima de la contraseña es 12.",
		"La clave de la API está guardada en 1Password.",
		"The API key is in the team vault; ask Dana.",
		"API key rotation landed in commit " + fake(501, 40, hexLower) + ".",
		"The API key is rotated by the cron job.",
		// Hashes, ids and digests.
		"Checksum of the release is " + fake(502, 64, hexLower) + ".",
		"Image digest sha256:" + fake(503, 64, hexLower),
		"ETag: \"" + fake(504, 32, hexLower) + "\"",
		"Merged as " + fake(505, 40, hexLower) + " after review.",
		"Order id 3f2504e0-4f89-11d3-9a0c-0305e82c3301 failed twice.",
		"Host key fingerprint SHA256:" + fake(506, 43, b64),
		"The session cookie id is a UUID: 7c9e6679-7425-40de-944b-e07fc1f90ae7",
		// Documented examples in disguise.
		"AWS docs' sample key id is " + fullWidth("AKIAIOSFODNN7EXAMPLE") + ".",
		"Example: API_KEY=sk-" + "EXAMPLE" + fake(507, 30, b62),
		// Benign encodings.
		"echo aGVsbG8gd29ybGQ= | base64 -d prints hello world",
		"The favicon is data:image/png;base64," + b64s(string([]byte{0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0, 0, 16, 0, 0, 0, 16, 8, 6, 0, 0, 0, 0x1f, 0xf3, 0xff, 0x61})),
		"Escape &lt;code&gt; and &amp; in the docs; &quot;quotes&quot; too.",
		"https://example.com/search?q=password%20policy%20rules",
		"The config is " + b64s("name: api\nreplicas: 3\nregion: eu-west-1\n"),
		"Docker config: {\"auths\": {\"ghcr.io\": {}}, \"credsStore\": \"desktop\"}",
		// Other scripts and typography.
		"Пароль должен быть длинным и уникальным.",
		"ｐａｓｓｗｏｒｄ ｐｏｌｉｃｙ: １２ characters",
		"**Never** store the *password* in the repo.",
		"Η πολιτική κωδικών απαιτεί 12 χαρακτήρες.",
		// Commands that read a secret instead of holding one.
		`sshpass -p "$SSH_PASS" ssh deploy@host`,
		"sshpass -f ~/.sshpw ssh deploy@host",
		"mysql -u root -p shop (it prompts for the password)",
		`curl -u "$USER:$TOKEN" https://api.acme.dev`,
		"docker login -u bot --password-stdin < token.txt",
		// URLs with ports, paths and at signs that hold no password.
		"https://example.com:8080/path@v2/index.html",
		"postgres://app@db:5432/app?sslmode=require#primary",
		"git@github.com:acme/api.git",
		"go install golang.org/x/tools/gopls@latest",
		// Prose that a careless join could glue into a token.
		"ghp_ tokens are 40 characters; GitLab ones\nstart with glpat- and Rotate Every Month.",
		"We use sk-learn pipelines\nand XGBoost Models For Ranking.",
		"The Kubernetes Operator\nReconciles CustomResourceDefinitions Every Minute.",
		"AKIA prefixes mark long-term keys; ASIA\nones are temporary.",
		"Rotate Every Key In The Vault Before Friday And Tell Dana.",
	}
}

// TestEvasions runs the evasion corpus and its look-alikes, and prints the
// rates that the README and a change's closing note quote.
func TestEvasions(t *testing.T) {
	ev, alikes := evasionCorpus(), evasionLookAlikes()
	more, moreAlikes := secondEvasions()
	third, thirdAlikes := thirdEvasions()
	more, moreAlikes = append(more, third...), append(moreAlikes, thirdAlikes...)
	for i, text := range more {
		ev = append(ev, secretCase{name: fmt.Sprintf("second set %d %.40q", i+1, text), text: text})
	}
	alikes = append(alikes, moreAlikes...)
	refused, accepted := 0, 0
	for _, c := range ev {
		if len(Secrets(c.text)) > 0 {
			refused++
		} else {
			t.Errorf("saved: %s", c.name)
		}
	}
	for _, text := range alikes {
		if got := Secrets(text); len(got) == 0 {
			accepted++
		} else {
			t.Errorf("refused look-alike %.70q: %v", text, got)
		}
	}
	t.Logf("evasions refused %d/%d (%.0f%%), look-alikes accepted %d/%d (false refusals %.1f%%)",
		refused, len(ev), 100*float64(refused)/float64(len(ev)), accepted, len(alikes),
		100*float64(len(alikes)-accepted)/float64(len(alikes)))
	if len(ev) < 60 || len(alikes) < 40 {
		t.Errorf("corpus too small: %d evasions, %d look-alikes, want 60 and 40", len(ev), len(alikes))
	}
}

// TestScreensBoundedOnEncodedText: a text that is base64 all through (of
// base64, of a secret) is screened in one pass over each decoding, not one
// per word start, and its secret is still found.
func TestScreensBoundedOnEncodedText(t *testing.T) {
	inner := strings.Repeat("DB_PASSWORD="+fake(601, 14, b62)+"\n", 400)
	for _, text := range []string{b64s(b64s(inner)), every(b64s(inner), 64, "\n"), every(b64s(inner), 60, "/")} {
		if got := Secrets(text); len(got) == 0 {
			t.Errorf("%.40q…: no secret found", text)
		}
	}
	if got := Secrets(strings.Repeat("aGVsbG8gd29ybGQ/", 4000)); len(got) != 0 {
		t.Errorf("readable base64 without a secret: %v", got)
	}
}

func TestField(t *testing.T) {
	ghp := "ghp_" + fake(701, 36, b62)
	tests := []struct {
		name, value, want string
	}{
		{"tags", "infra " + ghp[:20] + " " + ghp[20:], "a GitHub token in the tags at column 7"},
		{"domain", zw(ghp, "\u200b"), "a GitHub token in the domain at column 1"},
		{"reason", "it held the admin password Hunter2024!", "a hard-coded password in the reason at column 28"},
		{"reason", "duplicate of 3f2a9c1b0d4e5f67", ""},
		{"tags", "infra ops 2026-q1", ""},
	}
	for _, tt := range tests {
		got := Field(tt.name, tt.value)
		switch {
		case tt.want == "" && len(got) > 0:
			t.Errorf("Field(%s, %q) = %v, want none", tt.name, tt.value, got)
		case tt.want != "" && (len(got) != 1 || got[0].String() != tt.want):
			t.Errorf("Field(%s, …) = %v, want %q", tt.name, got, tt.want)
		}
		for _, f := range got {
			if strings.Contains(f.String(), ghp[4:12]) {
				t.Errorf("%q echoes the secret", f)
			}
		}
	}
}

// TestEvasionPositions: a disguised secret is placed where it starts in the
// text as written, through every view.
func TestEvasionPositions(t *testing.T) {
	ghp := "ghp_" + fake(702, 36, b62)
	for _, text := range []string{
		"see: " + ghp[:10] + "\n" + ghp[10:],
		"see: " + zw(ghp, "\u200b"),
		"see: " + fullWidth(ghp),
		"see: " + b64s(ghp),
		"see: " + htmlDec(ghp),
		"see: " + ghp[:10] + "**" + ghp[10:],
	} {
		got := Secrets(text)
		if len(got) != 1 || got[0].Offset != 5 || got[0].Column != 6 {
			t.Errorf("%.30q: %+v, want one finding at offset 5, column 6", text, got)
		}
	}
}
