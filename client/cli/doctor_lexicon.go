package cli

import (
	"fmt"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/lexicon"
)

// freeDictDirs are where doctor looks for FreeDict: where the daemon
// looks (lexicon.Load); tests point it elsewhere.
var freeDictDirs = lexicon.FreeDictDirs

// freeDict: the optional FreeDict English↔Spanish dictionaries, which the
// daemon reads from the system when it starts (GPL, so IHMT never ships
// them). Absent is fine; broken is worth knowing, since the daemon then
// runs without them and says nothing.
func (d *doctor) freeDict() {
	const name = "freedict"
	const install = "sudo apt install dict-freedict-eng-spa dict-freedict-spa-eng (Debian, Ubuntu), then `ihmt daemon stop` so the next start reads them"
	t, err := lexicon.FindFreeDict(freeDictDirs)
	switch {
	case err != nil:
		d.add(name, checkWarn, "a FreeDict dictionary is unreadable, so the daemon runs without translations: "+err.Error(), "reinstall it: "+install)
	case t == nil:
		d.add(name, checkOK, fmt.Sprintf("FreeDict English↔Spanish is not installed (looked in %s); optional: questions still meet memories in the other language through the built-in glossary", strings.Join(freeDictDirs, ", ")), install)
	default:
		d.add(name, checkOK, fmt.Sprintf("FreeDict English↔Spanish found (%s; headwords: %d): the daemon adds its translations to queries, read when it starts (its log says what it read; restart a daemon started before the install)", strings.Join(t.Files, ", "), t.Headwords), "")
	}
}
