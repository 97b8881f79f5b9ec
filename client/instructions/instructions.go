// Package instructions holds the one text that tells a model how to use
// IHMT's memory tools. The shim sends it at MCP initialize, and
// `ihmt mcp install` writes the same text into each agent's instructions
// file (CLAUDE.md, AGENTS.md), so the two can never drift apart.
//
// It lives in the client, which the shim is built on, rather than in the
// shim: the client's config editors need it too, and the client must not
// import the shim.
package instructions

import _ "embed"

// Text is the guidance, in Markdown.
//
//go:embed instructions.md
var Text string
