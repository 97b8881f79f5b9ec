// Package corpus generates the memories and questions the benchmarks load
// (scripts/bench, and the store's own profiling benchmarks): decisions and
// their reasons, machine set-up, people, conventions, bugs, spread over a
// few projects and the global scope. Memory i is a pure function of
// (seed, i), so a benchmark keeps nothing in memory while it loads the
// largest store (that would inflate its heap figures), every run writes
// the same texts, and a question can be made from any memory's number.
package corpus

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode"

	wordlists "github.com/ihmt-dev/ihmt/pkg/lexicon/words"
)

// The bounds of a memory's length in bytes. Each text carries a reference
// number derived from i, which makes every text unique by construction.
const (
	MinText = 200
	MaxText = 500
)

var (
	people = words(`Ana Luis Marta Javier Priya Chen Olga Tomas Ingrid Kofi Amara Yuki Diego Sofia Lars Mei
		Rafael Nadia Omar Elena Hugo Irene Kenji Fatima Pablo Lucia Mateo Carmen Alejandro Beatriz Noor Sven
		Aisha Bruno Clara Dmitri Emeka Freya Gustavo Hana Ivan Jonas Keiko Leila Marco Nina Oscar Paula
		Quentin Rosa Samir Tariq Ulla Vera Wen Ximena Yusuf Zoe`)
	techs = words(`PostgreSQL MySQL SQLite Redis Memcached Kafka RabbitMQ NATS gRPC protobuf GraphQL REST Docker
		Podman Kubernetes Helm Terraform Pulumi Ansible Nix Bazel Make CMake Ninja Go Rust Python TypeScript
		Node Deno Bun React Svelte Vue HTMX Tailwind Vite webpack esbuild pytest Jest Vitest Playwright Cypress
		Prometheus Grafana Loki Tempo OpenTelemetry Jaeger Sentry Datadog Elasticsearch OpenSearch Meilisearch
		Typesense ClickHouse DuckDB BigQuery Snowflake Airflow Dagster dbt Spark Flink Caddy nginx Envoy Traefik
		HAProxy Vault Consul etcd ZooKeeper MinIO S3 GCS Cloudflare Fastly Vercel Netlify Fly Render Heroku
		Supabase Firebase Auth0 Keycloak OAuth JWT WebAuthn Stripe Twilio SendGrid Postmark Tokio Axum Actix
		Gin Echo Chi FastAPI Django Flask Rails Phoenix Elixir Erlang Kotlin Swift Zig Haskell OCaml Clojure
		Scala Java Gradle Maven Poetry uv pnpm Yarn npm Turborepo Nx Lerna golangci-lint staticcheck ruff
		mypy pyright eslint prettier Biome gofumpt buf sqlc GORM Prisma Drizzle Alembic Flyway Liquibase`)
	oses     = words(`Ubuntu-24.04 Debian-12 Fedora-41 Arch NixOS macOS-15 macOS-14 Windows-11 WSL2 Alpine`)
	clouds   = words(`AWS GCP Azure Hetzner DigitalOcean OVH Linode Scaleway`)
	regions  = words(`eu-west-1 eu-central-1 us-east-1 us-west-2 ap-southeast-1 europe-west4 us-central1 fsn1 nbg1 ams3`)
	adjs     = words(`billing auth search payments inventory shipping reporting analytics notification ingest export import sync audit admin public internal legacy mobile desktop edge batch realtime`)
	nouns    = words(`service gateway worker scheduler indexer pipeline dashboard frontend backend api cache queue cluster database migration cron importer exporter webhook proxy sidecar agent crawler renderer uploader`)
	verbs    = words(`parse load fetch sync flush retry render upload merge split encode decode validate resolve index rank compact rotate publish drain replay`)
	objects  = words(`Invoice Batch Ledger Order Cart Session Token Account Report Chunk Segment Manifest Snapshot Cursor Event Record Payload Header Route Schema Tenant Quota Lease Shard`)
	dirs     = words(`internal cmd pkg src lib app services web tools scripts deploy infra`)
	reasons  = words(`latency cost simplicity familiarity licensing reliability throughput tooling observability security compliance portability memory footprint startup time`)
	styles   = words(`small focused commits|table-driven tests|explicit error wrapping|early returns|short functions|descriptive names|squash merges|rebasing over merging|conventional commit messages|comments that explain why|no mocks in integration tests|feature flags over long-lived branches`)
	conds    = words(`the runner is under load|two tests share a port|the clock crosses midnight UTC|the cache is cold|the network is slow|the fixtures are regenerated|GOMAXPROCS is 1|the temp dir is on tmpfs|the locale is not English|the container lacks git`)
	problems = words(`unformatted files|missing license headers|vet warnings|unused imports|failing race tests|stale generated code|large binaries|untracked migrations`)
	hosts    = words(`db01 db02 cache-a cache-b build-7 ci-runner-3 edge-fra edge-iad staging-1 prod-eu-2 bastion nas`)
	months   = words(`January February March April May June July August September October November December`)
)

// words splits a list on spaces and newlines, or on '|' when the list has
// multi-word entries.
func words(s string) []string {
	if strings.Contains(s, "|") {
		var out []string
		for _, w := range strings.Split(s, "|") {
			out = append(out, strings.Join(strings.Fields(w), " "))
		}
		return out
	}
	return strings.Fields(s)
}

func pick(r *rand.Rand, l []string) string { return l[r.IntN(len(l))] }

func component(r *rand.Rand) string { return pick(r, adjs) + " " + pick(r, nouns) }

func ident(r *rand.Rand) string {
	return pick(r, verbs) + pick(r, objects) + pick(r, objects)
}

func path(r *rand.Rand) string {
	return pick(r, dirs) + "/" + pick(r, adjs) + "/" + strings.ToLower(pick(r, objects)) + []string{".go", ".py", ".ts", ".rs", ".sql", ".yaml"}[r.IntN(6)]
}

func version(r *rand.Rand) string {
	return fmt.Sprintf("%d.%d.%d", 1+r.IntN(20), r.IntN(30), r.IntN(15))
}

func date(r *rand.Rand) string {
	return fmt.Sprintf("%d-%02d-%02d", 2021+r.IntN(6), 1+r.IntN(12), 1+r.IntN(28))
}

// sentences are the kinds of things people tell their agents.
var sentences = []func(r *rand.Rand) string{
	func(r *rand.Rand) string {
		return fmt.Sprintf("We chose %s over %s for the %s because of %s.", pick(r, techs), pick(r, techs), component(r), pick(r, reasons))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("%s's laptop runs %s with %s %s installed through the system package manager.", pick(r, people), pick(r, oses), pick(r, techs), version(r))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("%s prefers %s in code review and pushes back on %s.", pick(r, people), pick(r, styles), pick(r, styles))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("Correction: the %s moved from %s to %s in %s %d.", component(r), pick(r, techs), pick(r, techs), pick(r, months), 2021+r.IntN(6))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("The flaky test Test%s in %s fails when %s; rerunning with -count=1 hides it.", ident(r), path(r), pick(r, conds))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("Run `make %s` before pushing, since CI rejects %s.", strings.ToLower(pick(r, verbs)), pick(r, problems))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("%s owns the %s and reviews every change to %s.", pick(r, people), component(r), path(r))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("Staging uses %s %s on %s; production runs on %s in %s.", pick(r, techs), version(r), pick(r, hosts), pick(r, clouds), pick(r, regions))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("The %s listens on port %d and talks to %s through %s.", component(r), 1024+r.IntN(60000), pick(r, techs), pick(r, techs))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("%s is the entry point of the %s; it calls %s before writing to %s.", ident(r), component(r), ident(r), pick(r, techs))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("Never deploy the %s on Fridays: %s broke %s twice last quarter.", component(r), pick(r, techs), pick(r, hosts))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("The retry budget of the %s is %d attempts with %dms backoff, agreed with %s.", component(r), 2+r.IntN(8), 50*(1+r.IntN(20)), pick(r, people))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("%s asked to keep %s pinned at %s until the %s migration is done.", pick(r, people), pick(r, techs), version(r), pick(r, adjs))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("Secrets for the %s come from %s, never from environment files checked into %s.", component(r), pick(r, techs), pick(r, dirs))
	},
}

var refs = []string{"See PR #%d.", "Tracked in issue #%d.", "Ticket ENG-%d.", "Discussed in RFC %d.", "Incident INC-%d."}

// Memory returns memory i: 200–500 bytes, several sentences, unique.
func Memory(seed uint64, i int) string {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	ref := fmt.Sprintf(refs[r.IntN(len(refs))], 1000+i)
	var b strings.Builder
	if r.IntN(5) == 0 {
		// Some memories open with the date they became true.
		b.WriteString(date(r) + ": ")
	}
	for tries := 0; tries < 40; tries++ {
		s := sentences[r.IntN(len(sentences))](r)
		if b.Len()+len(s)+1+len(ref) > MaxText {
			if b.Len()+len(ref) >= MinText {
				break
			}
			continue
		}
		b.WriteString(s)
		b.WriteByte(' ')
		if b.Len()+len(ref) >= MinText && r.IntN(3) == 0 {
			break
		}
	}
	b.WriteString(ref)
	return b.String()
}

// Projects is how many projects the memories are spread over.
const Projects = 5

// ProjectOf places memory i: 30% global, the rest spread over the projects.

func ProjectOf(i int) (project string, global bool) {
	m := uint64(i) * 0x9E3779B97F4A7C15 >> 32
	if m%10 < 3 {
		return "", true
	}
	return ProjectName(int(m % Projects)), false
}

// ProjectName is the name of project k.
func ProjectName(k int) string { return fmt.Sprintf("github.com/acme/svc-%d", k) }

// Query returns a search an agent might run against a store holding
// memories [0, n): mostly a few content words of one stored memory, phrased
// as a question or as keywords, sometimes words that match nothing.
func Query(r *rand.Rand, seed uint64, n int) string {
	if r.IntN(10) == 0 {
		return fmt.Sprintf("what about %s %s", nonsense(r), nonsense(r))
	}
	text := Memory(seed, r.IntN(n))
	var content []string
	for _, w := range strings.FieldsFunc(text, func(c rune) bool { return !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '.' && c != '-' }) {
		w = strings.Trim(w, ".-")
		if len(w) >= 4 && !common[strings.ToLower(w)] {
			content = append(content, w)
		}
	}
	if len(content) == 0 {
		return "database"
	}
	k := 2 + r.IntN(4)
	var q []string
	for range k {
		q = append(q, content[r.IntN(len(content))])
	}
	switch r.IntN(3) {
	case 0:
		return "what did we decide about " + strings.Join(q, " ")
	case 1:
		return "where is " + strings.Join(q, " ") + "?"
	}
	return strings.Join(q, " ")
}

var common = wordlists.Set("corpus_common_words")

func nonsense(r *rand.Rand) string {
	syl := []string{"zor", "vak", "quil", "brem", "tusk", "ophy", "lin", "drax", "meep", "snor"}
	return syl[r.IntN(len(syl))] + syl[r.IntN(len(syl))] + syl[r.IntN(len(syl))]
}
