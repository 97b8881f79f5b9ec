package mcpconfig

import (
	"reflect"
	"testing"
)

// FuzzHookEdit: on any file, an install either refuses or gives a file that
// holds exactly IHMT's hooks and means the same otherwise; uninstalling
// that gives back the same meaning as the original, and installing twice
// changes nothing.
func FuzzHookEdit(f *testing.F) {
	for _, s := range []string{
		``, `{}`, hookFixtures[Claude], hookFixtures[Codex], `{"hooks": {}}`, `{"hooks": {"SessionStart": []}}`,
		`{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "x context --hook claude"}]}]}}`,
		"// c\n{\"a\": 1, /* b */ \"hooks\": {\"Stop\": [],}}", `[]`, `{"hooks": 3}`, hookFixtures[Gemini],
		`{"hooks": {"BeforeAgent": [{"hooks": [{"type": "command", "command": "x context --hook gemini"}]}]}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, client := range []string{Claude, Gemini} {
			want := hookGroups(client, HookCommand(client, testHook))
			src := []byte(s)
			out, err := setHookGroups(src, client, want)
			if err != nil {
				continue
			}
			again, err := setHookGroups(out, client, want)
			if err != nil || string(again) != string(out) {
				t.Fatalf("%s: a second install changed the file (%v):\n%s\n---\n%s", client, err, out, again)
			}
			back, err := removeHookGroups(out, client)
			if err != nil {
				t.Fatalf("%s: uninstall of an install refused: %v\n%s", client, err, out)
			}
			a, _ := parseJSONC(src)
			b, _ := parseJSONC(back)
			av, _ := a.decode()
			bv, _ := b.decode()
			if !reflect.DeepEqual(withoutOurHooks(av, client), withoutOurHooks(bv, client)) {
				t.Fatalf("%s: install then uninstall changed the meaning:\n%s\n---\n%s", client, s, back)
			}
		}
	})
}
