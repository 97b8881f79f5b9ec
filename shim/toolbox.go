package shim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tool families. Every tool's description is read by the model in
// every session that loads it, so a user picks the families a session
// needs: `ihmt-mcp --tools memory` costs the context of four tools, not
// ten.
const (
	FamilyMemory  = "memory"  // search_memory, save_memory, mark_outdated, forget_memory
	FamilySession = "session" // note, recall, digest_output
	FamilyProject = "project" // project_map, find_code, read_file
	// AllFamilies is the default.
	AllFamilies = FamilyMemory + "," + FamilySession + "," + FamilyProject
)

var families = []string{FamilyMemory, FamilySession, FamilyProject}

var memoryTools = []string{"search_memory", "save_memory", "mark_outdated", "forget_memory"}

// ParseFamilies reads a --tools value: families separated by commas,
// each named once at most; empty is refused (a server with no tools
// helps nobody).
func ParseFamilies(s string) ([]string, error) {
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !slices.Contains(families, f) {
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

// serves reports whether the server offers a family.
func (s *server) serves(family string) bool {
	return len(s.cfg.Tools) == 0 || slices.Contains(s.cfg.Tools, family)
}

// addToolbox adds the session and project families, and takes the memory
// family away, as the configuration asks.
func (s *server) addToolbox(srv *mcp.Server) {
	if !s.serves(FamilyMemory) {
		srv.RemoveTools(memoryTools...)
	}
	if s.serves(FamilySession) {
		s.addSessionTools(srv)
	}
	if s.serves(FamilyProject) {
		s.addProjectTools(srv)
	}
}
