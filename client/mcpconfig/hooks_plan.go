package mcpconfig

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
)

// AddHooks adds to p, an install's or an uninstall's plan for o.Client,
// the change of the client's hooks (h: what they run; unused by an
// uninstall). Gemini CLI keeps its hooks in the settings.json that holds
// the registration, so there the hooks' edit is chained after the
// registration's, on the bytes it leaves — one backup, of the file as it
// was — and an uninstall puts back the bytes from before the install when
// nothing but IHMT's entry and hooks changed since.
func AddHooks(p *Plan, o Options, h Hook, uninstall bool) error {
	path, err := o.Env.HookFile(o.Client, o.scope())
	if err != nil {
		return err
	}
	i := slices.IndexFunc(p.Changes, func(c *Change) bool { return c.Path == path && c.Via == "" && c.Changed() })
	if i < 0 {
		var c *Change
		if uninstall {
			c, err = UninstallHooks(o)
		} else {
			c, err = InstallHooks(o, h)
		}
		if err != nil {
			return err
		}
		p.Changes = append(p.Changes, c)
		return nil
	}
	prev := p.Changes[i]
	c := &Change{Path: path, What: "hooks", Old: prev.New, New: prev.New, Action: "unchanged", chained: true}
	switch {
	case prev.New == nil:
		// The registration's change removes the file, hooks and all.
		c.Action = "absent"
	case uninstall:
		out, err := removeHookGroups(prev.New, o.Client)
		if err != nil {
			return configError(path, err)
		}
		c.New = out
		if prior, ok := beforeInstall(o.Client, path, prev.Old); ok {
			c.New, c.Restored = prior, true
		}
		c.Action = action(c.Old, c.New)
	default:
		if !filepath.IsAbs(h.Command) {
			return fmt.Errorf("ihmt's path %q is not absolute", h.Command)
		}
		out, err := setHookGroups(prev.New, o.Client, hookGroups(o.Client, HookCommand(o.Client, h)))
		if err != nil {
			return configError(path, err)
		}
		c.New, c.Action = out, action(c.Old, out)
	}
	p.Changes = append(p.Changes, c)
	return nil
}

// beforeInstall finds the bytes client's settings file at path held before
// IHMT registered itself and added its hooks there, given cur, the file
// now: a backup (or no file at all) without either that an install of the
// same entry and hooks turns into exactly cur.
func beforeInstall(client, path string, cur []byte) ([]byte, bool) {
	f := formatFor(client, path)
	entry, present, err := f.entry(cur)
	if err != nil || !present {
		return nil, false
	}
	srv, ok := f.server(entry)
	if !ok {
		return nil, false
	}
	cmd, ok, err := ourCommand(cur, client)
	if err != nil || !ok {
		return nil, false
	}
	reinstall := func(b []byte) ([]byte, error) {
		r, err := f.set(b, srv)
		if err != nil {
			return nil, err
		}
		return setHookGroups(r, client, hookGroups(client, cmd))
	}
	for _, b := range append(backups(path), "") {
		var prior []byte
		if b != "" {
			if prior, err = readFile(b); err != nil || prior == nil || bytes.Equal(prior, cur) {
				continue
			}
			if _, has, err := f.entry(prior); err != nil || has {
				continue
			}
			if _, has, err := ourCommand(prior, client); err != nil || has {
				continue
			}
		}
		if r, err := reinstall(prior); err == nil && bytes.Equal(r, cur) {
			return prior, true
		}
	}
	return nil, false
}
