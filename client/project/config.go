package project

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
)

// parseConfig reads a git config file and calls fn for every variable, in file
// order. It follows git's own parser (config.c) for the parts that change what
// a value is: section and key names are case-insensitive and reported in
// lower case; a quoted subsection ([remote "Origin"]) keeps its case, while the
// legacy [remote.origin] form is lower-cased; values lose surrounding space
// and keep inner space; "#" and ";" start a comment outside double quotes;
// \" \\ \n \t \b are escapes; a backslash at the end of a line continues the
// value. A key without "=" is a boolean and is reported with the value "".
//
// A malformed file is an error, not a best guess, because git refuses such a
// file too and a guess could name the project wrongly.
func parseConfig(data []byte, fn func(section, subsection, key, value string)) error {
	p := &configParser{data: bytes.TrimPrefix(data, []byte("\ufeff"))}
	var section, subsection string
	for {
		c, ok := p.next()
		if !ok {
			return nil
		}
		switch {
		case c == '\n' || isConfigSpace(c):
		case c == '#' || c == ';':
			p.skipLine()
		case c == '[':
			var err error
			if section, subsection, err = p.header(); err != nil {
				return p.errorf("%v", err)
			}
		case isAlpha(c):
			if section == "" {
				return p.errorf("variable outside any section")
			}
			key, value, err := p.variable(c)
			if err != nil {
				return p.errorf("%v", err)
			}
			fn(section, subsection, key, value)
		default:
			return p.errorf("unexpected %q", c)
		}
	}
}

type configParser struct {
	data []byte
	pos  int
}

// next returns the next byte, with "\r\n" read as "\n" as git does.
func (p *configParser) next() (byte, bool) {
	if p.pos >= len(p.data) {
		return 0, false
	}
	c := p.data[p.pos]
	p.pos++
	if c == '\r' && p.pos < len(p.data) && p.data[p.pos] == '\n' {
		p.pos++
		c = '\n'
	}
	return c, true
}

func (p *configParser) skipLine() {
	if i := bytes.IndexByte(p.data[p.pos:], '\n'); i >= 0 {
		p.pos += i + 1
	} else {
		p.pos = len(p.data)
	}
}

// errorf reports a syntax error with the line it is on, counted only now
// because errors are rare and configs small.
func (p *configParser) errorf(format string, args ...any) error {
	line := 1 + bytes.Count(p.data[:min(p.pos, len(p.data))], []byte("\n"))
	if p.pos > 0 && p.pos <= len(p.data) && p.data[p.pos-1] == '\n' {
		line-- // the error is on the line the newline ended
	}
	return fmt.Errorf("bad config line %d: %s", line, fmt.Sprintf(format, args...))
}

// header parses a section header after its "[".
func (p *configParser) header() (section, subsection string, err error) {
	var name strings.Builder
	for {
		c, ok := p.next()
		switch {
		case !ok || c == '\n':
			return "", "", errors.New("unterminated section header")
		case c == ']':
			if name.Len() == 0 {
				return "", "", errors.New("empty section name")
			}
			// Legacy [section.subsection]: case-insensitive throughout.
			s := strings.ToLower(name.String())
			section, subsection, _ = strings.Cut(s, ".")
			return section, subsection, nil
		case isAlnum(c) || c == '-' || c == '.':
			name.WriteByte(c)
		case isConfigSpace(c):
			if name.Len() == 0 {
				return "", "", errors.New("empty section name")
			}
			sub, err := p.quotedSubsection()
			if err != nil {
				return "", "", err
			}
			return strings.ToLower(name.String()), sub, nil
		default:
			return "", "", fmt.Errorf("unexpected %q in section name", c)
		}
	}
}

// quotedSubsection parses ` "subsection"]`, where a backslash takes the next
// byte literally.
func (p *configParser) quotedSubsection() (string, error) {
	c, ok := p.next()
	for ok && isConfigSpace(c) {
		c, ok = p.next()
	}
	if !ok || c != '"' {
		return "", errors.New("subsection name must be quoted")
	}
	var sub strings.Builder
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			return "", errors.New("unterminated subsection name")
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			if c, ok = p.next(); !ok || c == '\n' {
				return "", errors.New("unterminated subsection name")
			}
		}
		sub.WriteByte(c)
	}
	if c, ok := p.next(); !ok || c != ']' {
		return "", errors.New("expected \"]\" after subsection name")
	}
	return sub.String(), nil
}

// variable parses `key [= value]` whose first byte, first, was already read.
func (p *configParser) variable(first byte) (key, value string, err error) {
	var name strings.Builder
	name.WriteByte(lower(first))
	for {
		c, ok := p.next()
		switch {
		case !ok || c == '\n':
			return name.String(), "", nil
		case isAlnum(c) || c == '-':
			name.WriteByte(lower(c))
			continue
		}
		for ok && isConfigSpace(c) {
			c, ok = p.next()
		}
		switch {
		case !ok || c == '\n':
			return name.String(), "", nil
		case c == '#' || c == ';':
			p.skipLine()
			return name.String(), "", nil
		case c == '=':
			value, err := p.value()
			return name.String(), value, err
		default:
			return "", "", fmt.Errorf("unexpected %q after variable name", c)
		}
	}
}

// value parses what follows "=" up to the end of the line it ends on.
func (p *configParser) value() (string, error) {
	var v strings.Builder
	quoted, comment := false, false
	spaces := 0 // unquoted spaces held back until we know they are not trailing
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			if quoted {
				return "", errors.New("unterminated quoted value")
			}
			return v.String(), nil
		}
		if comment {
			continue
		}
		if !quoted && isConfigSpace(c) {
			if v.Len() > 0 {
				spaces++
			}
			continue
		}
		if !quoted && (c == '#' || c == ';') {
			comment = true
			continue
		}
		for ; spaces > 0; spaces-- {
			v.WriteByte(' ')
		}
		switch c {
		case '\\':
			e, ok := p.next()
			switch {
			case !ok || e == '\n':
				// A continuation: the value goes on on the next line. Git
				// reads the end of the file as a newline, so a final
				// backslash is a continuation too.
			case e == 'n':
				v.WriteByte('\n')
			case e == 't':
				v.WriteByte('\t')
			case e == 'b':
				v.WriteByte('\b')
			case e == '\\' || e == '"':
				v.WriteByte(e)
			default:
				return "", fmt.Errorf("bad escape \\%c in value", e)
			}
		case '"':
			quoted = !quoted
		default:
			v.WriteByte(c)
		}
	}
}

func isConfigSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r'
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || '0' <= c && c <= '9' }

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
