package daemon

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ihmt-dev/ihmt/pkg/facts"
	"github.com/ihmt-dev/ihmt/pkg/store"
)

// ConfigName is the person's settings file in the store directory.
const ConfigName = "config.toml"

// PatternsName is the file of extra fact patterns in the store directory.
const PatternsName = "patterns.json"

// storeOptions reads the store's settings from <data>/config.toml — a few
// `key = value` lines; '#' starts a comment — and the person's extra fact
// patterns from <data>/patterns.json. Both files are optional. Known keys:
//
//	review = "all"      # hold every agent save for review (default "flagged":
//	                    # only suspicious saves and corrections of verified facts)
func storeOptions(data string) (store.Options, error) {
	var opts store.Options
	path := filepath.Join(data, ConfigName)
	f, err := os.Open(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return opts, fmt.Errorf("read config: %w", err)
	default:
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			line, _, _ := strings.Cut(sc.Text(), "#")
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			key, value, ok := strings.Cut(line, "=")
			key, value = strings.TrimSpace(key), strings.Trim(strings.TrimSpace(value), `"'`)
			if !ok {
				return opts, fmt.Errorf("%s line %d: expected key = value", path, n)
			}
			switch key {
			case "review":
				switch value {
				case "all":
					opts.ReviewAll = true
				case "flagged":
				default:
					return opts, fmt.Errorf("%s line %d: review = %q: use \"all\" or \"flagged\"", path, n, value)
				}
			default:
				return opts, fmt.Errorf("%s line %d: unknown setting %q (known: review)", path, n, key)
			}
		}
		if err := sc.Err(); err != nil {
			return opts, fmt.Errorf("read config: %w", err)
		}
	}
	x, err := facts.Load(filepath.Join(data, PatternsName))
	if err != nil {
		return opts, err
	}
	opts.Facts = x
	return opts, nil
}
