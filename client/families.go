package client

import (
	"fmt"
	"slices"
	"strings"
)

// The MCP tool families ihmt-mcp serves. Every tool's description costs
// context in every session that loads it, so a user picks the families a
// session needs: `ihmt-mcp --tools memory` (or IHMT_TOOLS=memory in its
// environment, which `ihmt mcp install --tools` writes) serves four tools,
// not ten. The shim and the CLI read the words here.
const (
	FamilyMemory  = "memory"  // search_memory, save_memory, mark_outdated, forget_memory
	FamilySession = "session" // note, recall, digest_output
	FamilyProject = "project" // project_map, find_code, read_file
	// AllFamilies is the default.
	AllFamilies = FamilyMemory + "," + FamilySession + "," + FamilyProject
	// ToolsEnv names the families when no --tools flag does.
	ToolsEnv = "IHMT_TOOLS"
)

// Families lists every family, in the order people are told.
var Families = []string{FamilyMemory, FamilySession, FamilyProject}

// ParseFamilies reads a --tools value: families separated by commas,
// each counted once; one naming none is refused (a server with no tools
// helps nobody).
func ParseFamilies(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !slices.Contains(Families, f) {
			return nil, fmt.Errorf("--tools: unknown family %q: use memory, session and/or project, separated by commas", f)
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--tools %q names no family: use memory, session and/or project, separated by commas", s)
	}
	return out, nil
}
