package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/testenv"
)

// TestAsk: at a terminal, an ambiguous answer asks which one is meant, and
// a number shows that memory; elsewhere (the same question, stdin not a
// terminal) ask prints what search prints, and answers --json.
func TestAsk(t *testing.T) {
	sock := startTestDaemon(t)
	base := []string{"--socket", sock, "--project", "github.com/acme/shop"}
	for _, text := range []string{"Luis owns the billing service.", "Luis owns the payment gateway."} {
		var out, errb bytes.Buffer
		if Run(testenv.Context(t), append(base, "save", text), &out, &errb) != 0 {
			t.Fatalf("save: %s %s", out.String(), errb.String())
		}
	}
	runAs := func(tty bool, stdin string, args ...string) (int, string) {
		e := &env{ctx: testenv.Context(t), socket: sock, proj: "github.com/acme/shop", stdin: strings.NewReader(stdin), tty: &tty}
		var out, errb bytes.Buffer
		e.stdout, e.stderr = &out, &errb
		err := commands[args[0]](e, args[1:])
		if err != nil {
			return 1, out.String() + errb.String() + err.Error()
		}
		return 0, out.String()
	}
	code, out := runAs(true, "2\n", "ask", "Luis")
	if code != 0 || !strings.Contains(out, "Which one do you mean?") || !strings.Contains(out, "  1. ") || !strings.Contains(out, "a number (1-2)") || !strings.Contains(out, "\nLuis owns the") {
		t.Errorf("ask at a terminal: exit %d\n%s", code, out)
	}
	// Elsewhere: exactly what search prints.
	_, asked := runAs(false, "", "ask", "Luis")
	_, searched := runAs(false, "", "search", "Luis")
	if asked != searched || !strings.HasPrefix(asked, "ambiguous") || strings.Contains(asked, "Which one") {
		t.Errorf("ask without a terminal:\n%s\nsearch:\n%s", asked, searched)
	}
	if code, out := runAs(false, "", "ask", "--json", "Luis"); code != 0 || !strings.Contains(out, `"status": "ambiguous"`) {
		t.Errorf("ask --json: exit %d\n%s", code, out)
	}
}
