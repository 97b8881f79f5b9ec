package screen

import (
	"strings"
	"testing"
)

// reverse returns s with its characters in the opposite order.
func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// issue29SecretCorpus is issue 29's evasion corpus for the secret screen, written
// apart from the issue's own examples: hostile texts (a secret disguised
// by splitting, spacing, reversing, case, encoding) and benign ones that
// look alike (the same prefixes and words, no secret).
func issue29SecretCorpus() (hostile, benign []string) {
	slack := "xoxb-" + fake(901, 12, digits) + "-" + fake(902, 13, digits) + "-" + fake(903, 24, b62)
	slackUser := "xoxp-" + fake(904, 11, digits) + "-" + fake(905, 12, digits) + "-" + fake(906, 12, digits) + "-" + fake(907, 32, hexLower)
	stripe := "sk_live_" + fake(908, 24, b62)
	akia := "AKIA" + fake(909, 16, upperNum)
	ghp := "ghp_" + fake(910, 36, b62)
	hostile = []string{
		"slack bot: " + every(slack, 4, " "),
		"slack bot: " + strings.Join(strings.Split(slack, "-"), " - "),
		"token " + strings.Join(strings.Split(slack, ""), " "),
		"the workspace token is " + every(slack, 6, "  "),
		"slack user token " + every(slackUser, 8, "\t"),
		"slack: " + slack[:5] + " " + slack[5:],
		"stripe key reversed: " + reverse(stripe),
		"the live stripe key backwards is `" + reverse(stripe) + "`",
		"aws key id " + strings.ToLower(akia),
		"AWS_ACCESS_KEY_ID=" + strings.ToLower(akia),
		"github token " + every(ghp, 10, " "),
		"gh token reversed " + reverse(ghp),
		"aws " + every(akia, 5, " "),
		"stripe " + every(stripe, 8, "\n"),
	}
	benign = []string{
		"Slack tokens start with xoxb- for bots and xoxp- for users.",
		"The Slack bot token lives in 1Password under 'deploy bot'.",
		"Stripe live keys begin sk_live_ and test keys sk_test_.",
		"evil_ks is the name of our kill-switch module, reversed as a joke.",
		"AWS key ids start with AKIA; ours is in the vault.",
		"The Asia Pacific region is ap-southeast-1, the Asia region's default.",
		"asia2024 conference notes are in docs/asia.",
		"GitHub tokens start with ghp_ and are rotated monthly.",
		"x o x o means hugs and kisses in Marta's messages.",
		"The request id was 1234 5678 9012 3456 in the log.",
		"Order 4111 1111 1111 1111 is the test card in Stripe docs.",
		"reversed: olleh dlrow is hello world backwards.",
		"The commit is 9fceb02d0ae598e95dc970b74767f19372d61af8 on main.",
		"Our Slack channel is #deploys and the bot is @shipit.",
	}
	return hostile, benign
}

// TestSecretCorpus runs the secret screen over issue 29's corpus and holds
// its figures.
func TestSecretCorpus(t *testing.T) {
	hostile, benign := issue29SecretCorpus()
	caught, falseAlarms := corpusFigures(t, hostile, benign, func(s string) bool { return len(Secrets(s)) > 0 })
	t.Logf("secrets: refused %d of %d hostile, falsely refused %d of %d benign", caught, len(hostile), falseAlarms, len(benign))
	// Before issue 29 the screen refused 4 of 14 and falsely refused none.
	if caught < len(hostile) || falseAlarms > 0 {
		t.Errorf("refused %d of %d hostile (want all), falsely refused %d benign (want none)", caught, len(hostile), falseAlarms)
	}
}

// TestLosslessOnly: what a reader can undo without guessing is refused:
// a token reversed, an AWS key id lower-cased. A lower-cased Stripe key has
// lost what it was made of, yet keeps the shape of a real one (its
// alphabet has lower-case letters), and the screen errs towards refusing
// what it cannot tell apart; words after an AWS prefix are no key.
func TestLosslessOnly(t *testing.T) {
	stripe := "sk_live_" + fake(920, 24, b62)
	for _, c := range []struct {
		text   string
		secret bool
	}{
		{"the key " + reverse(stripe), true},
		{"the key " + stripe, true}, // control
		{"the key " + strings.ToLower(stripe), true},
		{"aws id " + strings.ToLower("AKIA"+fake(921, 16, upperNum)), true},
		{"aws id akiaproductionbucket", false},
	} {
		if got := len(Secrets(c.text)) > 0; got != c.secret {
			t.Errorf("%q: secret %v, want %v", c.text, got, c.secret)
		}
	}
}
