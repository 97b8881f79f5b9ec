package lexicon

import (
	"maps"
	"slices"
	"testing"
)

func TestEvent(t *testing.T) {
	x := Default()
	tests := []struct {
		text  string
		event bool
	}{
		{"Incident 2025-08-14: the gateway served an expired certificate for 25 minutes.", true},
		{"Revisión en el pediatra el jueves 11 de diciembre a las 17:15.", true},
		{"Fixed the flaky invoice test: it relied on sequence caching.", true},
		{"The dashboard went blank after the deploy on March 3.", true},
		// A date a text opens with is when it became true; a day a state
		// ends on is part of the state; a mishap told with a change is one.
		{"2025-03-01: moved to the new flat in Valencia.", false},
		{"Commits are signed with the GPG key ending 7C1E (it expires on 2025-03-01).", false},
		{"La clave anterior caduca el 1 de marzo.", false},
		{"Upgraded golangci-lint to v1.60.3; fixed the 14 findings it raised.", false},
		{"Production is the S3 bucket behind CloudFront.", false},
		{"The standup is every Monday at 09:30.", false},
		// A mishap given as the reason for a state leaves it a state; the
		// same mishap told alone is a happening.
		{"I edit Go in VS Code because the Neovim gopls setup kept crashing.", false},
		{"The Neovim gopls setup kept crashing.", true},
		// A change cue that only says when the mishap happened leaves it one.
		{"Reinstalled the podman-compose plugin after the Fedora 42 upgrade broke it.", true},
	}
	for _, tt := range tests {
		if got := x.Event(tt.text); got != tt.event {
			t.Errorf("Event(%q) = %v, want %v", tt.text, got, tt.event)
		}
	}
}

func TestValuesAgree(t *testing.T) {
	x := Default()
	lang := x.Named([]string{"language"})
	tests := []struct {
		a, b  string
		agree bool
	}{
		{"switchyard pins Rust 1.82 in rust-toolchain.toml.", "The CI image is registry.example/ci/rust:1.82.", true},
		{"switchyard pins Rust 1.82 in rust-toolchain.toml.", "switchyard's rust-toolchain is 1.85 now.", false},
		// Two values and one of them is no statement of the same value.
		{"Switched from Python 3.11 to Python 3.12.", "Back on Python 3.11.", false},
		{"tidepool uses Node 18.", "tidepool uses Node 18 with npm.", true},
		{"tidepool uses Node.", "tidepool uses Node with npm.", false}, // no value at all
	}
	for _, tt := range tests {
		if got := x.ValuesAgree(lang, tt.a, tt.b); got != tt.agree {
			t.Errorf("ValuesAgree(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.agree)
		}
	}
}

func TestVersions(t *testing.T) {
	tests := []struct {
		text string
		want map[string]string
	}{
		{"Did the Phoenix 1.7.14 bump together with Elixir 1.17 and OTP 27.", map[string]string{"phoenix": "1.7.14", "elixir": "1.17", "otp": "27"}},
		{"The CI image is rust:1.82; Node v20 locally.", map[string]string{"rust": "1.82", "node": "20"}},
		{"10% for 15 minutes, then 50% at 10 s.", map[string]string{}},
	}
	for _, tt := range tests {
		if got := Versions(tt.text); !maps.Equal(got, tt.want) {
			t.Errorf("Versions(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestRemoved(t *testing.T) {
	x := Default()
	tests := []struct {
		text      string
		gone, not []string
	}{
		{"CI lives in Buildkite now; the Actions workflow was deleted.", []string{"action", "workflow"}, []string{"buildkit"}},
		{"Ahora uso Ghostty (WezTerm desinstalado), tmux igual.", []string{"wezterm"}, []string{"ghostty", "tmux"}},
		{"Nico's last day was Friday. CODEOWNERS now lists Greta.", []string{"nico"}, []string{"greta"}},
		{"CI lives in Buildkite now.", nil, []string{"buildkit", "ci"}},
	}
	for _, tt := range tests {
		got := x.Removed(tt.text)
		for _, w := range tt.gone {
			if !got[w] {
				t.Errorf("Removed(%q) = %v, want %s among them", tt.text, got, w)
			}
		}
		for _, w := range tt.not {
			if got[w] {
				t.Errorf("Removed(%q) = %v, want no %s", tt.text, got, w)
			}
		}
	}
}

func TestChangeTo(t *testing.T) {
	x := Default()
	tests := []struct {
		text     string
		from, to []string
	}{
		{"Replaced Recharts with Apache ECharts in the dashboard.", []string{"rechart"}, []string{"apach", "echarts", "in", "the", "dashboard"}},
		{"Cambié Pi-hole por AdGuard Home.", []string{"pi", "hole"}, []string{"adguard", "home"}},
		{"The charts are built with Recharts.", nil, nil},
	}
	for _, tt := range tests {
		from, to := x.ChangeTo(tt.text)
		if !slices.Equal(from, tt.from) || !slices.Equal(to, tt.to) {
			t.Errorf("ChangeTo(%q) = %v, %v, want %v, %v", tt.text, from, to, tt.from, tt.to)
		}
	}
}
