package screen

import (
	"fmt"
	"strings"
)

// A second set of evasions and look-alikes, written after the screens were
// built and run against them once before any change (the rates README's
// closing note quotes); what they then got past was fixed as a class
// (hyphenated line breaks, "pw" and PIN, a table of commands' password
// flags), and they stay here with the first set.
func secondEvasions() ([]string, []string) {
	ghs := "ghs_" + fake(801, 36, b62)
	akia := "AKIA" + fake(802, 16, upperNum)
	xoxp := "xoxp-" + fake(803, 12, digits) + "-" + fake(804, 12, digits) + "-" + fake(805, 32, hexLower)
	sk := "sk_live_" + fake(806, 30, b62)
	glpat := "glpat-" + fake(807, 20, b62)
	ev := []string{
		"token: " + every(ghs, 6, "-\n"),
		"the key is `" + akia[:8] + "` `" + akia[8:] + "`",
		"AWS: " + strings.Join(strings.Split(akia, ""), " "),
		"slack " + strings.ReplaceAll(xoxp, "-", "\u2011"),
		"stripe: " + sk[:12] + "\u200c\u200c" + sk[12:],
		"Gitlab PAT " + swap(glpat, "a", "\u0430", "p", "\u0440"),
		"pat=" + fullWidth(glpat[:10]) + glpat[10:],
		"dump: " + b64u("export GITHUB_TOKEN="+ghs),
		"<code>" + htmlHex(sk) + "</code>",
		"url " + pctAll("password=Zq8!kP2m"),
		"Our wifi passphrase is Tortuga_Feliz_42",
		"root pw is Pl4tyPus!",
		"la clave de root es Ornitorrinco#9",
		"Usuario: admin / Contraseña: Pinguino2025",
		"password for the nas: 'blue-heron-88'",
		"El PIN del móvil es 482913.",
		"jdbc:mysql://db:3306/shop?user=app&password=Xk2#pq9!",
		"redis-cli -a S3cr3tRedisPw ping",
		"PGPASSWORD='Tr0ub4dor&3' pg_dump shop",
		"htpasswd -b .htpasswd admin Adm1n!2024",
		"curl --user deploy:Dep10y!Key https://ci.acme.dev",
		"Authorization: Basic " + b64s("admin:Sup3rS3cret!"),
		"Access key " + fake(808, 40, hexLower) + " for the billing API",
		"secret key: " + fake(809, 64, hexLower),
		"La clave secreta del webhook es " + fake(810, 32, hexLower),
		"api key:\n" + fake(811, 20, b62) + "\n" + fake(812, 20, b62),
		"OPENAI_API_KEY=sk-proj-" + every(fake(813, 48, b62), 12, " "),
		"k e y = " + strings.Join(strings.Split(ghs, ""), " "),
		"&#x67;&#x68;&#x70;&#x5f;" + fake(814, 36, b62),
		"ghp_" + fake(815, 18, b62) + "<wbr>" + fake(816, 18, b62),
	}
	ok := []string{
		"The passphrase policy requires four words.",
		"The root password is managed by Ansible vault.",
		"La clave del éxito es la constancia.",
		"La contraseña se guarda cifrada con bcrypt.",
		"The PIN is four digits long.",
		"Use `redis-cli -a \"$REDIS_PASSWORD\"` in scripts.",
		"curl --user \"$CI_USER:$CI_TOKEN\" https://ci.acme.dev",
		"Authorization: Basic <base64 of user:pass>",
		"Access key rotation runs monthly.",
		"The commit " + fake(817, 40, hexLower) + " fixed the secret key loader.",
		"secret key loaded from /etc/app/secret.key",
		"Set the key with `gh secret set API_KEY`.",
		"The API key looks like sk-... and is in 1Password.",
		"k8s uses base64 for secrets: echo -n admin | base64 gives YWRtaW4=",
		"Our VPN password changed last week; ask IT.",
		"The key fingerprint is SHA256:" + fake(818, 43, b64) + ".",
		"Use the ghp_ prefix check in the linter.",
		"Password hashing moved from MD5 to Argon2id.",
		"Ticket ABCD-1234 covers the token refresh bug.",
		"The build id is 20240311T101500Z-7f3a9c.",
	}
	return ev, ok
}

// thirdEvasions are classes found missing while reviewing the first two
// sets (character escapes of JSON, JavaScript and C; hex; keywords in
// leetspeak), added with the fix, with look-alikes beside them.
func thirdEvasions() ([]string, []string) {
	ghp := "ghp_" + fake(901, 36, b62)
	var u, x, h strings.Builder
	for _, r := range ghp {
		fmt.Fprintf(&u, `\u%04x`, r)
		fmt.Fprintf(&x, `\x%02x`, r)
		fmt.Fprintf(&h, "%02x", r)
	}
	ev := []string{
		`"token": "` + u.String() + `"`,
		"t = '" + x.String() + "'",
		"hex: " + h.String(),
		"The p@ssw0rd is Hunter2024!",
		"P4ssword: Xk9mQ2pL",
		`{"api_key": "\u0041\u0042` + fake(903, 30, b62) + `"}`,
		"La clave es Gatito#2024.",
	}
	ok := []string{
		`C:\users\dana\x64\token.txt is where it lives`,
		"sha: " + fake(902, 64, hexLower),
		"hex of a greeting: 68656c6c6f20776f726c642c2074686973206973206120746573742e",
		`The JSON escape \u00e9 is é; \x41 is A.`,
		"P4ssword policy: twelve characters.",
		"La clave es Redis.",
		"La clave fue empezar pronto.",
		"The password is unset on the dev box.",
		"the passphrase is four random words",
		"La contraseña es siempre la misma.",
		"the password is 12 characters, no symbols",
	}
	return ev, ok
}
