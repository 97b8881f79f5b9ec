package client

import (
	"time"

	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// FormatTime renders a memory's time as people and models read it: a date
// when it is midnight UTC (how dates without a time are stored), else RFC
// 3339. The shim and the CLI both use it, so a memory reads the same in an
// agent's answer and at the terminal.
func FormatTime(t time.Time) string {
	t = t.UTC()
	if t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0 {
		return t.Format("2006-01-02")
	}
	return t.Format(time.RFC3339)
}

// Where says where a memory belongs: "global" or "project <key>".
func Where(m *ihmtv1.Memory) string {
	if m.GetScope() == ihmtv1.Scope_SCOPE_PROJECT {
		return "project " + m.GetProject()
	}
	return "global"
}
