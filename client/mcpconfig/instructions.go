package mcpconfig

import (
	"bytes"
	"strings"

	"github.com/ihmt-dev/ihmt/client/instructions"
)

// The instructions block: the text the shim sends at MCP initialize, between
// markers so that a later install replaces it and uninstall removes it,
// whatever else the user keeps in the file.
const (
	beginMarker = "<!-- ihmt:begin -->"
	endMarker   = "<!-- ihmt:end -->"
)

func instructionsBlock() string {
	return beginMarker + "\n" + strings.TrimSpace(instructions.Text) + "\n" + endMarker + "\n"
}

// blockSpan is one marked block: from the begin marker's line to past the
// end marker's line.
type blockSpan struct{ start, end int }

// findBlocks returns every marked block; markers that do not pair up are a
// syntaxError, since guessing where a block ends could delete the user's
// text.
func findBlocks(src []byte) ([]blockSpan, error) {
	var spans []blockSpan
	for off := 0; ; {
		b := bytes.Index(src[off:], []byte(beginMarker))
		e := bytes.Index(src[off:], []byte(endMarker))
		if b < 0 && e < 0 {
			return spans, nil
		}
		if b < 0 || (e >= 0 && e < b) {
			l, c := position(src, off+e)
			return nil, &syntaxError{l, c, endMarker + " without a " + beginMarker + " before it"}
		}
		start := off + b
		rest := src[start+len(beginMarker):]
		e = bytes.Index(rest, []byte(endMarker))
		if nb := bytes.Index(rest, []byte(beginMarker)); e < 0 || (nb >= 0 && nb < e) {
			l, c := position(src, start)
			return nil, &syntaxError{l, c, beginMarker + " without its " + endMarker}
		}
		end := start + len(beginMarker) + e + len(endMarker)
		if end < len(src) && src[end] == '\n' {
			end++
		}
		start = bytes.LastIndexByte(src[:start], '\n') + 1
		spans = append(spans, blockSpan{start, end})
		off = end
	}
}

// setBlock writes the current instructions into src: the first block is
// replaced and any further copies removed, or a block is appended.
func setBlock(src []byte) ([]byte, error) {
	spans, err := findBlocks(src)
	if err != nil {
		return nil, err
	}
	block := instructionsBlock()
	if len(spans) == 0 {
		return appendBlock(src, block), nil
	}
	out := src
	for i := len(spans) - 1; i > 0; i-- {
		out = cut(out, spans[i].start, spans[i].end)
	}
	return splice(out, spans[0].start, spans[0].end, block), nil
}

// setBlockAfter is setBlock, but a file it creates opens with preamble
// (a rules file's front matter).
func setBlockAfter(preamble string) func([]byte) ([]byte, error) {
	return func(src []byte) ([]byte, error) {
		if src == nil && preamble != "" {
			return []byte(preamble + instructionsBlock()), nil
		}
		return setBlock(src)
	}
}

// removeBlock removes every block from src; nil when nothing else is left.
func removeBlock(src []byte) ([]byte, error) {
	spans, err := findBlocks(src)
	if err != nil {
		return nil, err
	}
	out := src
	for i := len(spans) - 1; i >= 0; i-- {
		out = cut(out, spans[i].start, spans[i].end)
	}
	if len(spans) > 0 && out == nil {
		return []byte{}, nil
	}
	return out, nil
}

// blockState reports whether src holds the block, and whether it is the
// current text.
func blockState(src []byte) (present, current bool, err error) {
	spans, err := findBlocks(src)
	if err != nil || len(spans) == 0 {
		return false, false, err
	}
	got := string(src[spans[0].start:spans[0].end])
	return true, strings.TrimSuffix(got, "\n")+"\n" == instructionsBlock() && len(spans) == 1, nil
}
