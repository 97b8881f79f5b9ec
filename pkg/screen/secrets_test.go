package screen

import (
	"encoding/base64"
	"strings"
	"testing"
	"unicode/utf8"
)

// Test tokens are built here, never written out: fake draws characters from
// a fixed generator, so each token is well-formed and random-looking, the
// same on every run, and this file holds no string a secret scanner would
// stop a push for.
const (
	upperNum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	digits   = "0123456789"
	hexLower = "0123456789abcdef"
	b62      = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b64      = b62 + "+/"
	b64url   = b62 + "-_"
)

func fake(seed uint64, n int, alphabet string) string {
	x := seed*0x9E3779B97F4A7C15 + 0x2545F4914F6CDD1D
	b := make([]byte, n)
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = alphabet[(x>>11)%uint64(len(alphabet))]
	}
	return string(b)
}

// pemBody is lines of 64 base64 characters, as in a PEM file.
func pemBody(seed uint64, lines int, sep string) string {
	var b strings.Builder
	for i := range lines {
		b.WriteString(fake(seed+uint64(i), 64, b64))
		b.WriteString(sep)
	}
	return b.String()
}

func pem(label string, seed uint64, sep string) string {
	return "-----BEGIN " + label + "-----" + sep + pemBody(seed, 4, sep) + "-----END " + label + "-----"
}

func jwt(seed uint64) string {
	enc := base64.RawURLEncoding.EncodeToString
	return enc([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
		enc([]byte(`{"sub":"1234567890","name":"Dana","iat":1716239022}`)) + "." + fake(seed, 43, b64url)
}

func gcpJSON(sep string) string {
	return `{` + sep +
		`  "type": "service_account",` + sep +
		`  "project_id": "acme-prod",` + sep +
		`  "private_key_id": "` + fake(60, 40, hexLower) + `",` + sep +
		`  "private_key": "` + pem("PRIVATE KEY", 61, `\n`) + `\n",` + sep +
		`  "client_email": "deployer@acme-prod.iam.gserviceaccount.com",` + sep +
		`  "client_id": "` + fake(62, 21, digits) + `"` + sep + `}`
}

type secretCase struct {
	name string
	text string
	kind string
}

// secretCorpus is what must be refused: each text holds exactly one secret
// of the given kind.
func secretCorpus() []secretCase {
	slackBody := fake(17, 12, digits) + "-" + fake(18, 13, digits) + "-" + fake(19, 24, b62)
	return []secretCase{
		// AWS
		{"aws credentials file key id", "~/.aws/credentials:\n[default]\naws_access_key_id = AKIA" + fake(1, 16, upperNum) + "\n", kindAWSKeyID},
		{"aws temporary key id in prose", "The CI role handed out ASIA" + fake(2, 16, upperNum) + " as a temporary key; it expired at noon.", kindAWSKeyID},
		{"aws secret in credentials file", "[default]\naws_secret_access_key = " + fake(3, 40, b64), kindAWSSecret},
		{"aws secret exported", `export AWS_SECRET_ACCESS_KEY="` + fake(4, 40, b64) + `"`, kindAWSSecret},
		{"aws secret in sts json", `aws sts output: {"SecretAccessKey": "` + fake(5, 40, b64) + `"}`, kindAWSSecret},
		// GCP
		{"gcp service account file", "The deployer key (keys/deployer.json):\n" + gcpJSON("\n"), kindGCP},
		{"gcp service account one line", gcpJSON(""), kindGCP},
		// GitHub
		{"github classic token after a label", "Deploy bot token: ghp_" + fake(8, 36, b62), kindGitHub},
		{"github installation token in remote", "git remote set-url origin https://x-access-token:ghs_" + fake(9, 36, b62) + "@github.com/acme/api.git", kindGitHub},
		{"github oauth token", "The OAuth app returned gho_" + fake(10, 36, b62) + " for Dana's account.", kindGitHub},
		{"github user-to-server token", "ghu_" + fake(11, 36, b62) + " (user-to-server, from the app)", kindGitHub},
		{"github refresh token", "refresh with ghr_" + fake(12, 76, b62) + " when it expires", kindGitHub},
		{"github fine-grained pat", "New PAT: github_pat_" + fake(13, 22, b62) + "_" + fake(14, 59, b62), kindGitHub},
		{"github token in env", "GITHUB_TOKEN=ghp_" + fake(15, 36, b62), kindGitHub},
		// GitLab
		{"gitlab token in env", "GITLAB_TOKEN=glpat-" + fake(16, 20, b62), kindGitLab},
		{"gitlab token in clone url", "git clone https://oauth2:glpat-" + fake(20, 20, b62) + "@gitlab.com/acme/infra.git", kindGitLab},
		// Slack
		{"slack bot token", "SLACK_BOT_TOKEN=xoxb-" + slackBody, kindSlack},
		{"slack user token in prose", "my slack user token is xoxp-" + slackBody + ", scope chat:write", kindSlack},
		{"slack app token", "xoxa-2-" + slackBody, kindSlack},
		{"slack refresh token", "refresh: xoxr-" + slackBody, kindSlack},
		{"slack legacy token", "legacy xoxs-" + slackBody + " still works", kindSlack},
		{"slack webhook", "Alerts go to https://hooks.slack.com/services/T" + fake(21, 8, upperNum) + "/B" + fake(22, 10, upperNum) + "/" + fake(23, 24, b62), kindSlackHook},
		// Stripe
		{"stripe live key", "STRIPE_SECRET_KEY=sk_live_" + fake(24, 24, b62), kindStripe},
		{"stripe restricted key", "the reporting job uses rk_live_" + fake(25, 24, b62) + " (read-only)", kindStripe},
		{"stripe test key", "For local dev use sk_test_" + fake(26, 24, b62) + " (test mode).", kindStripe},
		// OpenAI, Anthropic
		{"openai legacy key", "OPENAI_API_KEY=sk-" + fake(27, 48, b62), kindOpenAI},
		{"openai project key in code", `openai.api_key = "sk-proj-` + fake(28, 64, b64url) + `"`, kindOpenAI},
		{"anthropic key in env", "ANTHROPIC_API_KEY=sk-ant-api03-" + fake(29, 93, b64url) + "AA", kindAnthropic},
		{"anthropic key in json", `{"apiKey": "sk-ant-api03-` + fake(30, 93, b64url) + `AA"}`, kindAnthropic},
		// Private keys
		{"rsa private key", pem("RSA PRIVATE KEY", 31, "\n"), kindPrivateKey},
		{"openssh private key", "~/.ssh/id_ed25519:\n" + pem("OPENSSH PRIVATE KEY", 32, "\n"), kindPrivateKey},
		{"ec private key", pem("EC PRIVATE KEY", 33, "\r\n"), kindPrivateKey},
		{"pgp private key block", "-----BEGIN PGP " + "PRIVATE KEY BLOCK-----\nComment: release signing\n\n" + pemBody(34, 3, "\n") + "=AbCd\n-----END PGP PRIVATE KEY BLOCK-----", kindPrivateKey},
		{"pkcs8 private key", "key.pem is\n" + pem("PRIVATE KEY", 35, "\n"), kindPrivateKey},
		{"encrypted private key", pem("ENCRYPTED PRIVATE KEY", 36, "\n"), kindPrivateKey},
		{"rsa key with pem headers", "-----BEGIN RSA " + "PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC," + fake(37, 32, "0123456789ABCDEF") + "\n\n" + pemBody(38, 3, "\n") + "-----END RSA PRIVATE KEY-----", kindPrivateKey},
		{"private key pasted on one line", "key: " + pem("RSA PRIVATE KEY", 39, " "), kindPrivateKey},
		// JWT
		{"jwt in curl header", `curl -H "Authorization: Bearer ` + jwt(40) + `" https://api.acme.dev/v1/me`, kindJWT},
		{"jwt in prose", "the session cookie was " + jwt(41) + " and it never expires", kindJWT},
		// Passwords in URLs
		{"postgres url", "DATABASE_URL=postgres://app:" + fake(42, 20, b62) + "@db.internal:5432/app", kindURLPassword},
		{"mysql url", "prod shop db: mysql://root:S3cure!Pass@10.0.0.5:3306/shop", kindURLPassword},
		{"mongodb srv url", "mongodb+srv://svc:" + fake(43, 16, b62) + "@cluster0.ab1cd.mongodb.net/prod?retryWrites=true", kindURLPassword},
		{"redis url without user", "REDIS_URL=redis://:" + fake(44, 24, b62) + "@cache:6379/0", kindURLPassword},
		{"amqp url", "orders consume from amqp://orders:" + fake(45, 18, b62) + "@rabbit:5672/vhost", kindURLPassword},
		{"https url with credentials", "pull from https://deploy:" + fake(46, 20, b62) + "@registry.acme.dev/v2/", kindURLPassword},
		// Assignments
		{"dotenv password", "DB_PASSWORD=hunter2-prod", kindPassword},
		{"password before a command", "PGPASSWORD=Tr0ub4dor psql -h db -U app", kindPassword},
		{"yaml password", "database:\n  user: app\n  password: s3cr3t-Pa55\n", kindPassword},
		{"password flag", "mysql -u root --password=Qw3rty!23 shop", kindPassword},
		{"password in prose after a colon", "the office wifi password: c0rrect-h0rse", kindPassword},
		{"smtp pass", "SMTP_PASS=mail-" + fake(47, 8, b62), kindPassword},
		{"json api key", `{"api_key": "` + fake(48, 32, b62) + `"}`, kindSecret},
		{"django secret key", "SECRET_KEY = 'django-insecure-" + fake(49, 50, b62) + "'", kindSecret},
		{"yaml client secret", "oauth:\n  client_secret: " + fake(50, 24, b62), kindSecret},
		{"camelCase key in js", `const client = new Client({ apiKey: "` + fake(51, 40, b62) + `" })`, kindSecret},
		{"sendgrid key", "SENDGRID_API_KEY=SG." + fake(52, 22, b64url) + "." + fake(53, 43, b64url), kindSecret},
		{"password in prose", "My wifi password is Tr0ub4dor&3.", kindPassword},
		{"api key header in curl", `curl -H "X-Api-Key: ` + fake(64, 32, b62) + `" https://api.acme.dev/v1/jobs`, kindSecret},
		{"token in url query", "GET https://api.acme.dev/v1/items?access_token=" + fake(54, 32, b62) + "&page=2", kindSecret},
		{"high-entropy key id", "SIGNING_KEY_ID=" + fake(55, 32, b62), kindEntropy},
		{"high-entropy generic key", "STRIPE_KEY=" + fake(56, 32, b62), kindEntropy},
		{"opaque bearer token", "Authorization: Bearer " + fake(57, 40, b62), kindBearer},
		// Other providers
		{"google api key", "GOOGLE_MAPS_KEY=AIza" + fake(58, 35, b64url), kindGoogle},
		{"hugging face token", "HF_TOKEN=hf_" + fake(59, 34, b62), kindHuggingFace},
		{"pypi token in pypirc", "~/.pypirc:\n[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmc" + fake(63, 60, b64url), kindPyPI},
	}
}

// lookAlikeCorpus is what must be accepted: text that resembles a secret
// without being one.
func lookAlikeCorpus() []string {
	return []string{
		// Hashes and ids
		"Fixed the race in " + fake(101, 40, hexLower) + " (see PR #412).",
		"git revert " + fake(102, 40, hexLower) + " broke staging; reverted the revert.",
		"Pinned the base image to node@sha256:" + fake(103, 64, hexLower),
		"sha256sum of release.tar.gz is " + fake(104, 64, hexLower),
		"cache key: " + fake(105, 64, hexLower),
		"Trace id 550e8400-e29b-41d4-a716-446655440000 shows the retry storm.",
		"request_id=9b2f1c3e-4d5a-4b6c-8d7e-0f1a2b3c4d5e",
		"GPG_KEY_ID=3AA5C34371567BD2",
		"SIGNING_KEY_ID=release-key-2024-03",
		"KEY_ID=prod-signing-2",
		"session_token_id=42",
		`{"key": "user:1234:profile"}`,
		"SORT_KEY=created_at",
		// Prose about secrets
		"Our password policy: at least 12 characters, rotated yearly.",
		"Rotate the API key every 90 days; the reminder is in the team calendar.",
		"Set GITHUB_TOKEN in CI settings, never in the repo.",
		"GITHUB_TOKEN: provided by the Actions runner",
		"Password: ask Maria, it is in the team 1Password vault.",
		"ghp_ tokens are 40 characters; GitLab ones start with glpat-.",
		"Slack bot tokens start with xoxb- and live in Vault.",
		"Bearer tokens expire after 15 minutes.",
		"password_min_length=12",
		"The token is short-lived; the password is SHA-256 hashed and the API token is valid for 24h.",
		"The admin password was reset on 2024-03-11 by Dana.",
		"TOKEN_TTL=3600",
		"SECRET_NAME=prod/db-credentials",
		"The file starts with -----BEGIN OPENSSH " + "PRIVATE KEY----- and must be chmod 600.",
		`JWTs here are signed with HS256; the header is {"alg":"HS256","typ":"JWT"}.`,
		// Documented examples and placeholders
		"AWS docs use AKIAIOSFODNN7EXAMPLE as the sample access key id.",
		"aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
		"GITHUB_TOKEN=ghp_EXAMPLE" + fake(106, 29, b62),
		"API_KEY=your-key-here",
		"DB_PASSWORD=changeme",
		"SECRET_KEY=xxx",
		"PASSWORD=<password>",
		"TOKEN=${GITHUB_TOKEN}",
		"export OPENAI_API_KEY=$OPENAI_API_KEY",
		"token: ${{ secrets.GITHUB_TOKEN }}",
		"Webhook format: https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX",
		"Authorization: Bearer $API_TOKEN",
		"https://api.acme.dev/v1/items?access_token=<token>",
		"STRIPE_SECRET_KEY=sk_test_dummy" + fake(107, 20, b62),
		"POSTGRES_PASSWORD=postgres in docker-compose, local dev only",
		// Code that reads a secret instead of holding one
		`api_key = os.environ["OPENAI_API_KEY"]`,
		"const token = process.env.GITHUB_TOKEN;",
		`password := r.FormValue("password")`,
		"apiKey: config.openaiKey",
		// Public keys and certificates
		"My laptop key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI" + fake(108, 43, b64) + " dana@laptop",
		"deploy key (public): ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQ" + fake(109, 300, b64) + " ci@acme",
		"SSH_PUBLIC_KEY=AAAAC3NzaC1lZDI1NTE5AAAAI" + fake(110, 43, b64),
		pem("PUBLIC KEY", 111, "\n"),
		pem("CERTIFICATE", 112, "\n"),
		"Checkout uses pk_live_" + fake(113, 24, b62) + " (publishable, safe in the browser).",
		// URLs without passwords
		"See https://github.com/acme/api/pull/412 for the discussion.",
		"Local DB: postgres://app@localhost:5432/app_dev",
		"DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app",
		"mysql://root:***@localhost:3306/shop",
		"postgres://user:password@localhost/mydb is the template in the README",
		"mongodb://<user>:<password>@cluster.internal:27017",
		"amqp://guest:guest@localhost:5672 is RabbitMQ's default",
		"ssh://git@github.com:22/acme/api.git",
		// Words that contain token prefixes
		"We use the risk-assessment-framework-v2 module for scoring.",
		"Use the dask-distributed-scheduler-v2 config for big jobs.",
		"The fixture decodes aGVsbG8gd29ybGQsIHRoaXMgaXMgYSB0ZXN0 to 'hello world, this is a test'.",
		"We decided to use PostgreSQL because the team knows it; MySQL was the runner-up.",
	}
}

// TestSecrets runs secrets and look-alikes as one table: each secret must
// give exactly one finding of its kind, each look-alike none.
func TestSecrets(t *testing.T) {
	cases := secretCorpus()
	for _, text := range lookAlikeCorpus() {
		cases = append(cases, secretCase{name: "look-alike", text: text})
	}
	for _, c := range cases {
		got := Secrets(c.text)
		switch {
		case c.kind == "" && len(got) != 0:
			t.Errorf("%s %.60q: Secrets = %v, want none", c.name, c.text, got)
		case c.kind != "" && (len(got) != 1 || got[0].Kind != c.kind):
			t.Errorf("%s: Secrets = %v, want one %s", c.name, got, c.kind)
		}
	}
}

// TestSecretsMixed runs look-alikes and secrets through the same text, the
// way a long memory mixes them: every secret found, nothing else.
func TestSecretsMixed(t *testing.T) {
	var b strings.Builder
	var want []string
	alikes := lookAlikeCorpus()
	for i, c := range secretCorpus() {
		b.WriteString(alikes[i%len(alikes)])
		b.WriteString("\n\n")
		b.WriteString(c.text)
		b.WriteString("\n\n")
		want = append(want, c.kind)
	}
	got := Secrets(b.String())
	if len(got) != len(want) {
		t.Fatalf("found %d secrets, want %d: %v", len(got), len(want), got)
	}
	for i := range got {
		if got[i].Kind != want[i] {
			t.Errorf("finding %d is %v, want a %s", i, got[i], want[i])
		}
	}
}

func TestRates(t *testing.T) {
	secrets, alikes := secretCorpus(), lookAlikeCorpus()
	refused, accepted := 0, 0
	for _, c := range secrets {
		if len(Secrets(c.text)) > 0 {
			refused++
		}
	}
	for _, text := range alikes {
		if len(Secrets(text)) == 0 {
			accepted++
		}
	}
	t.Logf("secrets refused %d/%d, look-alikes accepted %d/%d", refused, len(secrets), accepted, len(alikes))
	if len(secrets) < 45 || len(alikes) < 45 {
		t.Errorf("corpus too small: %d secrets, %d look-alikes, want 45 each", len(secrets), len(alikes))
	}
	if refused != len(secrets) || accepted != len(alikes) {
		t.Errorf("secrets refused %d/%d, look-alikes accepted %d/%d", refused, len(secrets), accepted, len(alikes))
	}
}

// TestFindingStringHidesSecret checks that no message carries the secret or
// any 8-byte piece of it.
func TestFindingStringHidesSecret(t *testing.T) {
	for _, c := range secretCorpus() {
		for _, f := range Secrets(c.text) {
			msg := f.String()
			secret := c.text[f.Offset:]
			if i := strings.IndexAny(secret, " \n\"'@"); i > 0 {
				secret = secret[:i]
			}
			for i := 0; i+8 <= len(secret); i++ {
				if strings.Contains(msg, secret[i:i+8]) {
					t.Errorf("%s: %q contains %q from the secret", c.name, msg, secret[i:i+8])
					break
				}
			}
			if !strings.Contains(msg, f.Kind) || !strings.Contains(msg, "line ") {
				t.Errorf("%s: %q does not name the kind and line", c.name, msg)
			}
		}
	}
}

func TestFindingString(t *testing.T) {
	tests := []struct {
		f    Finding
		want string
	}{
		{Finding{Kind: kindAWSKeyID, Line: 3, Column: 12}, "an AWS access key id at line 3, column 12"},
		{Finding{Kind: kindGitHub, Line: 1, Column: 1}, "a GitHub token at line 1, column 1"},
		{Finding{Kind: kindOpenAI, Line: 2, Column: 5}, "an OpenAI API key at line 2, column 5"},
		{Finding{Kind: kindJWT, Line: 7, Column: 30}, "a JWT at line 7, column 30"},
		{Finding{Kind: kindEntropy, Line: 1, Column: 9}, "a high-entropy secret at line 1, column 9"},
	}
	for _, tt := range tests {
		if got := tt.f.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
	for _, k := range kindOrder {
		if got := (Finding{Kind: k}).String(); strings.HasPrefix(got, "a A") || strings.HasPrefix(got, "a O") {
			t.Errorf("article: %q", got)
		}
	}
}

func TestPositions(t *testing.T) {
	akia := "AKIA" + fake(201, 16, upperNum)
	ghp := "ghp_" + fake(202, 36, b62)
	pw := fake(203, 20, b62)
	type pos struct {
		kind                 string
		offset, line, column int
	}
	tests := []struct {
		name string
		text string
		want []pos
	}{
		{"at the very start", akia, []pos{{kindAWSKeyID, 0, 1, 1}}},
		{"second line after a tab", "keys:\n\t" + akia, []pos{{kindAWSKeyID, 7, 2, 2}}},
		{"value, not name", "x\ny\nTOKEN=" + ghp, []pos{{kindGitHub, 10, 3, 7}}},
		{"columns count characters", "café ok\nclé = \"" + ghp + "\"", []pos{{kindGitHub, len("café ok\nclé = \""), 2, 8}}},
		{"crlf lines", "a\r\nb\r\nDB_PASSWORD=" + pw, []pos{{kindPassword, 18, 3, 13}}},
		{"password inside the url", "db: postgres://app:" + pw + "@h/db", []pos{{kindURLPassword, 19, 1, 20}}},
		{"sorted, several lines", "first " + ghp + "\nthen postgres://app:" + pw + "@h/db\n\nand " + akia,
			[]pos{{kindGitHub, 6, 1, 7}, {kindURLPassword, 6 + len(ghp) + 21, 2, 21}, {kindAWSKeyID, 6 + len(ghp) + 21 + len(pw) + 11, 4, 5}}},
		{"emoji before the secret", "🔑 " + ghp, []pos{{kindGitHub, len("🔑 "), 1, 3}}},
	}
	for _, tt := range tests {
		got := Secrets(tt.text)
		if len(got) != len(tt.want) {
			t.Errorf("%s: got %v, want %d findings", tt.name, got, len(tt.want))
			continue
		}
		for i, w := range tt.want {
			g := got[i]
			if g.Kind != w.kind || g.Offset != w.offset || g.Line != w.line || g.Column != w.column {
				t.Errorf("%s: finding %d = %+v, want %+v", tt.name, i, g, w)
			}
		}
	}
}

// TestKeyMaterialEscapes is a fuzz find: a backslash not followed by n or r
// after a BEGIN line once stopped keyMaterial from advancing.
func TestKeyMaterialEscapes(t *testing.T) {
	for _, text := range []string{
		"-----BEGIN " + "PRIVATE KEY-----\\O" + pemBody(301, 2, `\n`),
		"-----BEGIN " + "PRIVATE KEY-----\\",
		"-----BEGIN " + "PRIVATE KEY-----\\n\\",
	} {
		Secrets(text) // must return
	}
	if got := Secrets("-----BEGIN " + "PRIVATE KEY-----\\n" + pemBody(302, 2, `\n`)); len(got) != 1 {
		t.Errorf("JSON-escaped key: got %v, want one private key", got)
	}
}

func TestNoSecretsInEmptyText(t *testing.T) {
	for _, text := range []string{"", "=", ":", "://", "a=", "password=", "-----BEGIN RSA " + "PRIVATE KEY-----", "eyJ", "\xff\xfe=\xff"} {
		if got := Secrets(text); got != nil {
			t.Errorf("Secrets(%q) = %v, want nil", text, got)
		}
	}
}

func FuzzSecrets(f *testing.F) {
	for _, c := range secretCorpus() {
		f.Add(c.text)
	}
	for _, text := range lookAlikeCorpus() {
		f.Add(text)
	}
	f.Add("password=password=password=")
	f.Add(`"private_key": "` + "\"type\": \"service_account\"")
	f.Fuzz(func(t *testing.T, text string) {
		prev := -1
		for _, g := range Secrets(text) {
			if g.Offset < 0 || g.Offset >= len(text) {
				t.Fatalf("offset %d out of [0, %d)", g.Offset, len(text))
			}
			if g.Offset <= prev {
				t.Fatalf("findings not sorted or not distinct: %d after %d", g.Offset, prev)
			}
			prev = g.Offset
			before := text[:g.Offset]
			line := strings.Count(before, "\n") + 1
			col := utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:]) + 1
			if g.Line != line || g.Column != col {
				t.Fatalf("%v: want line %d, column %d", g, line, col)
			}
			if g.Kind == "" {
				t.Fatalf("finding without a kind at %d", g.Offset)
			}
		}
	})
}

// benchText is about 1 MiB of what memories hold: prose, config, commands
// and look-alikes, with one real secret every few kilobytes.
func benchText() string {
	var b strings.Builder
	alikes := lookAlikeCorpus()
	secrets := secretCorpus()
	prose := "We moved the staging cluster to eu-west-1 in March because latency from Madrid was too high; " +
		"the team agreed to keep Postgres 16 and to run migrations with `make migrate` before each deploy. " +
		"Dana prefers tabs, reviews in the morning, and wants `go test -race ./...` green before a push.\n"
	for i := 0; b.Len() < 1<<20; i++ {
		b.WriteString(prose)
		b.WriteString(alikes[i%len(alikes)])
		b.WriteString("\n")
		if i%8 == 0 {
			b.WriteString(secrets[i%len(secrets)].text)
			b.WriteString("\n")
		}
	}
	return b.String()
}

func BenchmarkSecrets(b *testing.B) {
	text := benchText()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		Secrets(text)
	}
}
