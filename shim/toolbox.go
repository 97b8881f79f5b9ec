package shim

import (
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ihmt-dev/ihmt/client"
)

// The tool families, as client.ParseFamilies reads them.
const (
	FamilyMemory  = client.FamilyMemory
	FamilySession = client.FamilySession
	FamilyProject = client.FamilyProject
)

var memoryTools = []string{"search_memory", "save_memory", "mark_outdated", "forget_memory"}

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
