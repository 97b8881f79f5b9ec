package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/ihmt-dev/ihmt/pkg/store"
)

// ConfigName is the person's settings file in the store directory.
const ConfigName = "config.toml"

// settings are the keys config.toml may set; any other key is refused, so
// that a misspelt setting does not silently do nothing. Known keys:
//
//	review = "all"      # hold every agent save for review (default "flagged":
//	                    # only suspicious saves and corrections of verified facts)
//	[context]           # what agents' hooks inject (see context.go)
//	start_tokens = 800  # the session-start briefing's budget
//	prompt_tokens = 300 # the per-prompt injection's budget
//	prompt = false      # no per-prompt injection (default true)
//	[sync]              # sync over git (see sync.go)
//	interval = "15m"    # sync in the background this often (default: off)
type settings struct {
	Review  reviewMode      `toml:"review"`
	Context contextSettings `toml:"context"`
	Sync    syncSettings    `toml:"sync"`
}

// reviewMode is the review setting: true holds every agent save.
type reviewMode bool

func (r *reviewMode) UnmarshalText(text []byte) error {
	switch string(text) {
	case "all":
		*r = true
	case "flagged":
		*r = false
	default:
		return fmt.Errorf("review = %q: use \"all\" or \"flagged\"", text)
	}
	return nil
}

// storeOptions reads the store's settings from <data>/config.toml, the
// person's extra fact patterns from <data>/patterns.json (store.LoadPatterns)
// and their additions to the lexicon from <data>/lexicon.json
// (store.LoadLexicon). All three files are optional. A problem with
// lexicon.json is logged, not returned: the built-in lexicon serves, since
// a file that only adds words must never keep the memory down (`ihmt
// doctor` and `ihmt status` show the problem).
func storeOptions(data string, log *slog.Logger) (store.Options, error) {
	var opts store.Options
	s, err := readSettings(filepath.Join(data, ConfigName))
	if err != nil {
		return opts, err
	}
	opts.ReviewAll = bool(s.Review)
	if opts.Facts, err = store.LoadPatterns(data); err != nil {
		return opts, err
	}
	var lexErr error
	if opts.Lexicon, lexErr = store.LoadLexicon(data); lexErr != nil {
		log.Warn("lexicon.json is not used: the built-in lexicon serves", "problem", lexErr, "fix", "correct or remove the file, then restart ihmtd")
	}
	return opts, nil
}

// readSettings parses the config file at path; a missing file is all
// defaults. Its errors name the file and, where the TOML library knows it,
// the line.
func readSettings(path string) (settings, error) {
	var s settings
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return s, nil
	case err != nil:
		return s, fmt.Errorf("read config: %w", err)
	}
	md, err := toml.Decode(string(data), &s)
	var perr toml.ParseError
	switch {
	case errors.As(err, &perr):
		return s, fmt.Errorf("%s line %d: %s", path, perr.Position.Line, perr.Message)
	case err != nil:
		return s, fmt.Errorf("%s: %s", path, strings.TrimPrefix(err.Error(), "toml: "))
	}
	if keys := md.Undecoded(); len(keys) > 0 {
		return s, fmt.Errorf("%s: unknown setting %q (known: review, context.start_tokens, context.prompt_tokens, context.prompt, sync.interval)", path, keys[0].String())
	}
	return s, nil
}
