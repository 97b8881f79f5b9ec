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
		"// c\n{\"a\": 1, /* b */ \"hooks\": {\"Stop\": [],}}", `[]`, `{"hooks": 3}`,
	} {
		f.Add(s)
	}
	want := hookGroups(HookCommand(Claude, testHook))
	f.Fuzz(func(t *testing.T, s string) {
		src := []byte(s)
		out, err := setHookGroups(src, want)
		if err != nil {
			return
		}
		again, err := setHookGroups(out, want)
		if err != nil || string(again) != string(out) {
			t.Fatalf("a second install changed the file (%v):\n%s\n---\n%s", err, out, again)
		}
		back, err := removeHookGroups(out)
		if err != nil {
			t.Fatalf("uninstall of an install refused: %v\n%s", err, out)
		}
		a, _ := parseJSONC(src)
		b, _ := parseJSONC(back)
		av, _ := a.decode()
		bv, _ := b.decode()
		if !reflect.DeepEqual(withoutOurHooks(av), withoutOurHooks(bv)) {
			t.Fatalf("install then uninstall changed the meaning:\n%s\n---\n%s", s, back)
		}
	})
}
