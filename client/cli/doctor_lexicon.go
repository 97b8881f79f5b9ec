package cli

import (
	"fmt"
	"path/filepath"
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

// lexicon: the person's additions to the lexicon. A problem there no
// longer stops the daemon (the built-in lexicon serves), so it is here
// that a person learns their additions are not used.
func (d *doctor) lexicon() {
	const name = "lexicon"
	path := filepath.Join(d.storeDir(), lexicon.FileName)
	if err := lexicon.Check(path); err != nil {
		d.add(name, checkWarn, fmt.Sprintf("your additions to the lexicon are not used, the built-in lexicon serves: %v", err),
			"correct or remove "+path+", then `ihmt daemon stop` so the next start reads it")
		return
	}
	d.add(name, checkOK, "the lexicon is the built-in one with your additions, if any ("+path+")", "")
}

// lexiconWarning is `ihmt status`'s line about a lexicon file the daemon
// could not use, "" when there is none.
func lexiconWarning(storeDir string) string {
	path := filepath.Join(storeDir, lexicon.FileName)
	if err := lexicon.Check(path); err != nil {
		return fmt.Sprintf("  warning:  your lexicon additions are not used (%v); the built-in lexicon serves: correct or remove the file, then `ihmt daemon stop`\n", err)
	}
	return ""
}
