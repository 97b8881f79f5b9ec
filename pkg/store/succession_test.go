package store

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ihmt-dev/ihmt/pkg/leaf"
)

// filler is what a partition holds besides the memories a test is about:
// a store of a few memories has no rare words, and real ones are not that
// small.
var filler = []string{
	"The team retro happens every other Friday afternoon.",
	"Code review needs one approval before merging.",
	"Integration tests need the docker compose stack running first.",
	"The staging environment is rebuilt every night from main.",
	"Error budgets are tracked in the quarterly reliability review.",
	"Feature flags are cleaned up one sprint after full rollout.",
	"Onboarding docs live in the wiki under Getting Started.",
	"The design system components come from the shared UI package.",
	"Incident reviews are blameless and written within two days.",
	"Dependabot opens dependency updates every Monday morning.",
	"Release notes are drafted from the merged pull request titles.",
	"The support rotation answers customer tickets within a day.",
}

// corpus opens a store at clk's days, with filler in alice's project and
// in the global partition.
func corpus(t *testing.T) (*Store, *clock) {
	t.Helper()
	clk := &clock{}
	clk.set("2024-01-02")
	s := openAt(t, t.TempDir(), clk)
	for i, text := range filler {
		c := alice
		c.Session = "filler"
		saveIn(t, s, SaveInput{Caller: c, Content: text, Date: "2024-01-02", Scope: ScopeProject})
		saveIn(t, s, SaveInput{Caller: c, Content: "Personal: " + text, Date: "2024-01-02", Scope: ScopeGlobal})
		_ = i
	}
	return s, clk
}

// at saves text for c dated day (and saved on it, unless saved is later).
func at(t *testing.T, s *Store, clk *clock, c Caller, day, text string, scope Scope) SaveResult {
	t.Helper()
	clk.set(day)
	return saveIn(t, s, SaveInput{Caller: c, Content: text, Date: day, Scope: scope})
}

func TestProbableSupersession(t *testing.T) {
	other := alice
	other.Agent = leaf.Agent{Name: "opencode"}
	tests := []struct {
		name   string
		old    string
		new    string
		by     Caller
		query  string
		asOf   string // asks as of a day between the two
		wantOl bool   // the old memory answers (as of the day, or a control)
	}{
		{name: "an upgrade worded unlike the pin",
			old: "The session cache runs on Redis 7 on the app host.", new: "Redis is gone: Valkey 8 runs the session cache now.",
			by: alice, query: "what runs the session cache?"},
		{name: "a correction by another agent",
			old: "golangci-lint is pinned to v1.56.2 in the Makefile.", new: "Upgraded golangci-lint to v1.60.3 and enabled errorlint.",
			by: other, query: "which golangci-lint version do we use?"},
		{name: "a Spanish correction of an English memory",
			old: "The team standup is at 09:45 every day in the huddle room.", new: "El standup del equipo pasa a las 9:30 desde septiembre.",
			by: alice, query: "what time is the standup?"},
		{name: "a Spanish correction sharing only translated words",
			old: "Checkout traces are kept at a sampling of 5% before they reach the collector.", new: "Bajamos el muestreo de trazas al 2%: el colector iba justo de disco.",
			by: other, query: "what sampling do the checkout traces use?"},
		{name: "as of a day before the correction the old value answers",
			old: "The session cache runs on Redis 7 on the app host.", new: "Redis is gone: Valkey 8 runs the session cache now.",
			by: alice, query: "what runs the session cache?", asOf: "2024-06-01", wantOl: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, clk := corpus(t)
			old := at(t, s, clk, alice, "2024-03-01", tt.old, ScopeProject)
			nw := at(t, s, clk, tt.by, "2024-09-01", tt.new, ScopeProject)
			if len(nw.Leaf.Probable) == 0 || nw.Leaf.Probable[0].ID != old.Leaf.ID {
				t.Fatalf("the save links nothing to the memory it corrects: %+v", nw.Leaf.Probable)
			}
			r := find(t, s, SearchInput{Query: tt.query, AsOf: tt.asOf})
			want, other := nw.Leaf.ID, old.Leaf.ID
			if tt.wantOl {
				want, other = other, want
			}
			if r.Verdict != Found || len(r.Hits) == 0 || r.Hits[0].Leaf.ID != want {
				t.Fatalf("%q: %v %v, want %s first", tt.query, r.Verdict, ids(r), want)
			}
			if i := rankOf(r, other); !tt.wantOl && i >= 0 {
				h := r.Hits[i]
				if h.Current || len(h.Notices) == 0 || !strings.HasPrefix(h.Notices[0], "PROBABLY OUTDATED") {
					t.Errorf("the old memory is shown as current or without its notice: %+v", h)
				}
			}
		})
	}
}

// TestSupersessionFollowsTheDates: a memory saved late about an older
// value becomes history, not the answer; A → B → A answers the last A.
func TestSupersessionFollowsTheDates(t *testing.T) {
	s, clk := corpus(t)
	nomad := at(t, s, clk, alice, "2024-08-21", "The collector now deploys to the Nomad cluster with three allocations.", ScopeProject)
	clk.set("2024-09-03") // saved after, dated before
	ansible := saveIn(t, s, SaveInput{Caller: alice, Content: "The collector deploys with the Ansible playbook to three systemd hosts.", Date: "2024-04-15", Scope: ScopeProject})
	if len(ansible.Leaf.Probable) == 0 || !ansible.Leaf.Probable[0].Newer {
		t.Fatalf("the backdated memory should be linked as the older one: %+v", ansible.Leaf.Probable)
	}
	r := find(t, s, SearchInput{Query: "how does the collector deploy?"})
	if r.Hits[0].Leaf.ID != nomad.Leaf.ID {
		t.Errorf("now: %v, want Nomad first", ids(r))
	}
	r = find(t, s, SearchInput{Query: "how does the collector deploy?", AsOf: "2024-06-01"})
	if r.Hits[0].Leaf.ID != ansible.Leaf.ID {
		t.Errorf("as of June: %v, want Ansible first", ids(r))
	}

	p1 := at(t, s, clk, alice, "2024-10-01", "The dashboard dev server runs on port 5173 with the API proxy.", ScopeProject)
	at(t, s, clk, alice, "2024-11-01", "Switched the dashboard dev server to port 3000 for the SSO redirect.", ScopeProject)
	p3 := at(t, s, clk, alice, "2025-01-10", "Reverted the dashboard dev server to port 5173: SSO allows it now.", ScopeProject)
	r = find(t, s, SearchInput{Query: "which port is the dashboard dev server on?"})
	if r.Hits[0].Leaf.ID != p3.Leaf.ID {
		t.Errorf("A → B → A: %v, want the revert (%s) first", ids(r), p3.Leaf.ID)
	}
	_ = p1
}

// TestTwoPeopleAreNotVersions: two memories that open with different
// people's names are never versions of one statement, however alike
// their words; the same person's move, told the other way, is.
func TestTwoPeopleAreNotVersions(t *testing.T) {
	s, clk := corpus(t)
	sam := at(t, s, clk, alice, "2024-03-01", "Sam Whitlock (GitHub @swhitlock) maintains the parser and lives in Wellington.", ScopeProject)
	alex := at(t, s, clk, alice, "2024-04-01", "Alex Moreau (GitHub @amoreau) maintains the parser rules and lives in Grenoble.", ScopeProject)
	if len(alex.Leaf.Probable) > 0 {
		t.Errorf("Alex's memory links Sam's as its older version: %+v", alex.Leaf.Probable)
	}
	moved := at(t, s, clk, alice, "2024-09-01", "Sam Whitlock moved: the parser's maintainer lives in Auckland now.", ScopeProject)
	if len(moved.Leaf.Probable) == 0 || moved.Leaf.Probable[0].ID != sam.Leaf.ID {
		t.Errorf("Sam's move links nothing to Sam's memory (positive control): %+v", moved.Leaf.Probable)
	}
}

// TestFactsOrderTheirOwn: two memories whose read facts fall on one key
// are ordered by the timeline, the certain kind, and get no probable link
// besides; the same correction worded past the patterns (the positive
// control) gets one.
func TestFactsOrderTheirOwn(t *testing.T) {
	s, clk := corpus(t)
	madrid := at(t, s, clk, alice, "2024-03-01", "I live in Madrid.", ScopeGlobal)
	lisbon := at(t, s, clk, alice, "2024-06-01", "I live in Lisbon now.", ScopeGlobal)
	if slices.ContainsFunc(lisbon.Leaf.Probable, func(p leaf.Probable) bool { return p.ID == madrid.Leaf.ID }) {
		t.Errorf("a fact's new value also got a probable link: %+v", lisbon.Leaf.Probable)
	}
	if r := find(t, s, SearchInput{Query: "where do I live?"}); len(r.Hits) == 0 || r.Hits[0].Leaf.ID != lisbon.Leaf.ID {
		t.Errorf("where do I live: %v, want Lisbon first", ids(r))
	}
	redis := at(t, s, clk, alice, "2024-03-01", "The session cache runs on Redis 7 on the app host.", ScopeProject)
	valkey := at(t, s, clk, alice, "2024-09-01", "Redis is gone: Valkey 8 runs the session cache now.", ScopeProject)
	if len(valkey.Leaf.Probable) == 0 || valkey.Leaf.Probable[0].ID != redis.Leaf.ID {
		t.Errorf("a correction past the patterns got no link: %+v", valkey.Leaf.Probable)
	}
}

// TestSupersessionStaysInItsProject: a change in one project never
// outdates another project's memory, with the other project's view as the
// positive control.
func TestSupersessionStaysInItsProject(t *testing.T) {
	s, clk := corpus(t)
	mine := at(t, s, clk, alice, "2024-03-01", "The service database is Postgres 15 in staging and prod.", ScopeProject)
	theirs := at(t, s, clk, bob, "2024-03-02", "The service database is Postgres 15 in staging and prod here too.", ScopeProject)
	moved := at(t, s, clk, bob, "2024-10-01", "Upgraded the service database to Postgres 16 while fixing a flaky test.", ScopeProject)
	if r := find(t, s, SearchInput{Query: "which Postgres version does the service database run?"}); r.Hits[0].Leaf.ID != mine.Leaf.ID || !r.Hits[0].Current {
		t.Errorf("alpha's answer moved with beta's upgrade: %v", ids(r))
	}
	r := find(t, s, SearchInput{Caller: bob, Query: "which Postgres version does the service database run?"})
	if r.Hits[0].Leaf.ID != moved.Leaf.ID || rankOf(r, theirs.Leaf.ID) < 0 || r.Hits[rankOf(r, theirs.Leaf.ID)].Current {
		t.Errorf("beta's own upgrade should answer in beta: %v", ids(r))
	}
}

// TestUnlink: a person undoes a probable supersession; the old memory is
// current again, after a restart too; an agent may not.
func TestUnlink(t *testing.T) {
	dir := t.TempDir()
	clk := &clock{}
	clk.set("2024-01-02")
	s := openAt(t, dir, clk)
	for _, text := range filler {
		saveIn(t, s, SaveInput{Caller: alice, Content: text, Date: "2024-01-02", Scope: ScopeProject})
	}
	old := at(t, s, clk, alice, "2024-03-01", "The session cache runs on Redis 7 on the app host.", ScopeProject)
	nw := at(t, s, clk, alice, "2024-09-01", "Redis is gone: Valkey 8 runs the session cache now.", ScopeProject)
	q := SearchInput{Query: "what runs the session cache?"}
	if r := find(t, s, q); r.Hits[rankOf(r, old.Leaf.ID)].Current {
		t.Fatalf("positive control: the old memory should be outdated first: %v", ids(r))
	}
	links, err := s.Probables(nobody, ScopeAll)
	if err != nil || len(links) != 1 || links[0].Old.ID != old.Leaf.ID || links[0].New.ID != nw.Leaf.ID || links[0].Old.Text == "" {
		t.Fatalf("Probables = %+v, %v", links, err)
	}
	ctx := context.Background()
	person := nobody
	person.Project = alice.Project
	if _, err := s.Unlink(ctx, alice, old.Leaf.ID, nw.Leaf.ID); err == nil {
		t.Fatal("an agent undid a probable supersession")
	}
	if _, err := s.Unlink(ctx, person, nw.Leaf.ID, old.Leaf.ID); err == nil {
		t.Fatal("unlinking the wrong way round should say there is no such link")
	}
	if _, err := s.Unlink(ctx, person, old.Leaf.ID, nw.Leaf.ID); err != nil {
		t.Fatal(err)
	}
	check := func(s *Store, when string) {
		r := find(t, s, q)
		if i := rankOf(r, old.Leaf.ID); i < 0 || !r.Hits[i].Current || len(r.Hits[i].Notices) > 0 {
			t.Errorf("%s: the unlinked memory should be current again: %v", when, ids(r))
		}
		if links, _ := s.Probables(nobody, ScopeAll); len(links) != 0 {
			t.Errorf("%s: links left: %+v", when, links)
		}
	}
	check(s, "after unlink")
	s.Close()
	check(openAt(t, dir, clk), "after a restart")
}

// TestNotFoundAsksWhatTheQuestionAsks: a question about a value nobody
// stored, a name the memory has never heard of, a period or a project the
// best memory is not about is not found — each with a positive control in
// the same store.
func TestNotFoundAsksWhatTheQuestionAsks(t *testing.T) {
	s, clk := corpus(t)
	at(t, s, clk, alice, "2024-02-01", "Priya Nair is the tech lead and reviews every pull request.", ScopeGlobal)
	at(t, s, clk, alice, "2024-02-02", "My phone number is +34 600 123 456.", ScopeGlobal)
	at(t, s, clk, alice, "2024-10-25", "The dashboard outage after the October deploy: stale cached index.html.", ScopeProject)
	at(t, s, clk, alice, "2024-02-03", "The events stream is NATS JetStream with seven days of retention.", ScopeProject)
	tests := []struct {
		query string
		want  Verdict
	}{
		{"What's Priya's phone number?", NotFound},
		{"What's my phone number?", Found},
		{"Which Kafka topic carries the events?", NotFound},
		{"Which NATS stream carries the events?", Found},
		{"What caused the dashboard outage in June 2024?", NotFound},
		{"What caused the dashboard outage in October 2024?", Found},
	}
	for _, tt := range tests {
		r := find(t, s, SearchInput{Query: tt.query})
		if r.Verdict != tt.want {
			t.Errorf("%q: %v (%s), want %v", tt.query, r.Verdict, r.Message, tt.want)
		}
	}
}

// TestTwoReferentsAskForAClue: the same first name for two people asks;
// the full name, or a version of one thing, does not.
func TestTwoReferentsAskForAClue(t *testing.T) {
	s, clk := corpus(t)
	gil := at(t, s, clk, alice, "2024-02-01", "Marta Gil is the SRE who runs the platform and handles firewall changes.", ScopeGlobal)
	quintero := at(t, s, clk, bob, "2024-03-01", "Marta Quintero is the product manager who owns the gateway roadmap.", ScopeGlobal)
	r := find(t, s, SearchInput{Query: "What does Marta do?", Scope: ScopeAll})
	if r.Verdict != Ambiguous || rankOf(r, gil.Leaf.ID) < 0 || rankOf(r, quintero.Leaf.ID) < 0 {
		t.Errorf("two Martas: %v %v, want ambiguous with both", r.Verdict, ids(r))
	}
	if r := find(t, s, SearchInput{Query: "What does Marta Quintero do?", Scope: ScopeAll}); r.Verdict != Found || r.Hits[0].Leaf.ID != quintero.Leaf.ID {
		t.Errorf("the full name: %v %v, want Marta Quintero found", r.Verdict, ids(r))
	}
}

// TestWhatIsNoNewVersion: a happening, a second statement of the same
// value and a restatement of what an older memory changed to are not new
// versions of it; the same memories with a value that moved (the
// positive controls) are.
func TestWhatIsNoNewVersion(t *testing.T) {
	tests := []struct {
		name, old, new string
		link           bool
		// context is saved first: memories that make a shared word common.
		context []string
	}{
		{name: "an incident on the day it happened",
			old: "The dashboard is served from the S3 bucket behind CloudFront, published by the deploy workflow.",
			new: "The dashboard showed a white screen after the 2024-08-14 deploy: CloudFront served a cached index.html from the S3 bucket."},
		{name: "control: the serving moved",
			old: "The dashboard is served from the S3 bucket behind CloudFront, published by the deploy workflow.",
			new: "The dashboard is off the S3 bucket now: CloudFront serves it from Netlify, published by the deploy workflow.", link: true},
		{name: "the same version stated twice",
			old: "The gateway pins Rust 1.82 in rust-toolchain.toml for the musl target.",
			new: "The gateway's CI image is rust:1.82 for the musl target."},
		{name: "control: the pinned version moved",
			old: "The gateway pins Rust 1.82 in rust-toolchain.toml for the musl target.",
			new: "The gateway's rust-toolchain.toml pins Rust 1.85 now for the musl target.", link: true},
		{name: "what an older change changed to, restated",
			old: "Replaced Recharts with ECharts in the dashboard: the heatmap was unusable with Recharts beyond 50k cells.",
			new: "The dashboard heatmap renders 200k cells in 400 ms with the ECharts canvas renderer."},
		{name: "control: the library changed again",
			old: "Replaced Recharts with ECharts in the dashboard: the heatmap was unusable with Recharts beyond 50k cells.",
			new: "The dashboard heatmap renders 200k cells in 400 ms with the ECharts canvas renderer, where Recharts gave up at 50k.", link: true},
		{name: "one name given a new version",
			old: "Did the Phoenix 1.7.14 bump together with Elixir 1.17 and OTP 27.",
			new: "We are on Elixir 1.18.3 now; the built-in JSON module replaced Jason in two places.", link: true,
			context: []string{"The views are written in Elixir with LiveView.", "Elixir code is formatted with mix format."}},
		{name: "control: one product replaced by another in one role (two capitalised subjects, no person)",
			old: "Nginx is the reverse proxy on the homelab, terminating TLS for every service.",
			new: "Caddy is now the reverse proxy on the homelab, terminating TLS for every service.", link: true},
		{name: "a mishap told with the upgrade it followed",
			old: "On the laptop containers run under rootless Podman; compose goes through the podman-compose plugin.",
			new: "Reinstalled the podman-compose plugin on the laptop after the Fedora 42 upgrade broke it."},
		{name: "control: the compose plugin replaced",
			old: "On the laptop containers run under rootless Podman; compose goes through the podman-compose plugin.",
			new: "Replaced the podman-compose plugin on the laptop: compose goes through docker-compose now.", link: true},
		{name: "a mishap that names the release the machine was on, moved",
			old: "Reinstalled the compose plugin on the laptop after the Fedora 42 upgrade broke it.",
			new: "The laptop is on Fedora 43 since yesterday; the upgrade was clean.", link: true},
		{name: "control: a mishap that names no release",
			old: "Reinstalled the compose plugin on the laptop after the upgrade broke it.",
			new: "The laptop is on Fedora 43 since yesterday; the upgrade was clean."},
		{name: "two people's editors, each by a first name",
			old: "Priya has moved from VS Code to Helix as her main editor, with the gruvbox theme.",
			new: "Tomás has dropped Helix: his main editor is Zed now, with the gruvbox theme."},
		{name: "control: one person's editor again",
			old: "Priya has moved from VS Code to Helix as her main editor, with the gruvbox theme.",
			new: "Priya has dropped Helix: her main editor is Zed now, with the gruvbox theme.", link: true},
		{name: "one name given a new address",
			old: "The NAS, tern, is at 192.168.1.20 (static lease on the router) and exports the media share over SMB.",
			new: "Moved flats: tern is 10.0.10.20, the printer 10.0.10.40.", link: true,
			context: []string{"tern runs the backups at night.", "tern has two 8 TB disks.", "The router hands out DNS over DHCP."}},
		{name: "control: another name at another address",
			old:     "The NAS, tern, is at 192.168.1.20 (static lease on the router) and exports the media share over SMB.",
			new:     "Moved flats: tern's printer is 10.0.10.40.",
			context: []string{"tern runs the backups at night.", "tern has two 8 TB disks.", "The router hands out DNS over DHCP."}},
		{name: "the old value said to be gone",
			old: "The gateway CI is GitHub Actions (ci.yml): go test -race, golangci-lint, images built with ko.",
			new: "CI lives in Buildkite now (pipeline nimbo/ferry); the Actions workflow was deleted.", link: true,
			context: []string{"CI runs the linters before the tests.", "CI caches the Go modules.", "Nightly CI runs the fuzzers.", "Actions secrets are managed by the platform team."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, clk := corpus(t)
			for _, c := range tt.context {
				at(t, s, clk, alice, "2024-02-01", c, ScopeProject)
			}
			old := at(t, s, clk, alice, "2024-03-01", tt.old, ScopeProject)
			nw := at(t, s, clk, alice, "2024-09-01", tt.new, ScopeProject)
			linked := slices.ContainsFunc(nw.Leaf.Probable, func(p leaf.Probable) bool { return p.ID == old.Leaf.ID })
			if linked != tt.link {
				t.Errorf("linked: %v, want %v (%+v)", linked, tt.link, nw.Leaf.Probable)
			}
		})
	}
}
