package facts

import (
	"strings"
	"testing"
)

// dense builds about n bytes of text about as dense in facts as memory
// gets: most sentences state one, in both languages. It measures the cost
// of the path that extracts, where realistic measures the path that
// rejects.
func dense(n int) string {
	paras := []string{
		"2024-03-11: I live in Madrid and I work at Acme. The deploy script lives in scripts/deploy.sh and is run from CI.",
		"We decided to keep the monorepo because the build is simpler. The test suite is slow on Mondays, which is fine.",
		"The staging database is now PostgreSQL 17. Remember that the API listens on port 8080 and the admin panel on 9090.",
		"Decisión: usamos Redis para la caché porque es lo que el equipo conoce. El problema es que la latencia sube en picos.",
		"Notes from the retro: nobody likes the flaky e2e tests, and the plan is to quarantine them until we have time.",
		"Mi editor es Neovim y mi shell es fish. Prefiero tabuladores para la indentación, aunque el proyecto usa espacios.",
		"Diagnóstico: bronquitis aguda\nTratamiento: reposo y paracetamol 1 g cada 8 horas\nMedicación: ninguna crónica",
		"The migration from Jest to Vitest went well; we switched from Jest to Vitest for unit tests and kept Playwright for e2e.",
		"If the cache is cold, the first request takes two seconds. This is expected and documented in the runbook.",
		"Ana is now the tech lead. Luis Marín es el revisor de seguridad. The on-call rotation changes every Friday.",
		"Refactor the handler: parseRequest should validate the body before touching the store, see issue 42 for details.",
		"La reunión de planificación es los martes a las diez. El documento de arquitectura está en la wiki del equipo.",
	}
	return repeatParas(paras, n)
}

// realistic builds about n bytes of text shaped like a real store: most
// sentences are decisions, reasons, commands, code and log excerpts that
// state no durable fact; about one in seven does.
func realistic(n int) string {
	paras := []string{
		"Decided to keep the retry logic in the client rather than the daemon, because the daemon cannot tell a slow disk from a dead one. Revisit if we ever add remote stores.",
		"To rebuild the index run `ihmt rebuild --verbose` and check that the leaf count matches `ls ~/.local/share/ihmt/leaves | wc -l`. It takes about forty seconds on the laptop.",
		"2025-09-02: I moved to Valencia. The flat is near the old town, so mornings start with a walk before the standup.",
		"Bug: search returned stale results after a forget. Cause: the cache key ignored the tombstone generation. Fix: include it; added a regression test in store_test.go.",
		"```go\nfunc (s *Store) Save(ctx context.Context, l leaf.Leaf) error {\n\treturn s.q.Enqueue(ctx, l)\n}\n```",
		"Code review notes: prefer table tests, keep error strings lower case, and wrap errors with the operation that failed. Nobody wants a panic in the daemon.",
		"The staging database is now PostgreSQL 17. Migrations ran cleanly, although the vacuum settings needed another look after the upgrade.",
		"Meeting with the design team about the onboarding flow. We agreed to drop the tour and show an example memory instead, since users skip tours anyway.",
		"Log excerpt: level=warn msg=\"slow fsync\" dur=412ms path=/home/u/.local/share/ihmt/log. This happens when the backup job runs at the same time.",
		"Reunión con el equipo de producto: quieren exportar a Markdown antes de fin de mes. Lo estimamos en dos días si reutilizamos el renderizador existente.",
		"Performance: the benchmark on the CI runner is noisy, so compare medians of five runs and ignore anything under three percent.",
		"Usamos Redis para la caché de sesiones. Si se cae, la aplicación sigue funcionando pero los usuarios tienen que volver a entrar.",
		"TODO: document how the shim finds the project root when the client sends no roots, and what happens with nested git repositories.",
		"Ana is now the tech lead for the platform team, and she wants design docs for anything that touches the storage format.",
	}
	return repeatParas(paras, n)
}

// repeatParas joins paragraphs, in turn, into about n bytes of text.
func repeatParas(paras []string, n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(paras[i%len(paras)])
		b.WriteString("\n\n")
	}
	return b.String()
}

func BenchmarkExtractRealistic1MiB(b *testing.B) { benchExtract(b, realistic(1<<20)) }

func BenchmarkExtractDense1MiB(b *testing.B) { benchExtract(b, dense(1<<20)) }

func BenchmarkExtractMemory(b *testing.B) {
	benchExtract(b, "2025-09-02: I moved to Valencia. The staging database is now PostgreSQL 17 and listens on port 5433.")
}

// benchExtract measures the default extractor on text, in bytes a second.
func benchExtract(b *testing.B, text string) {
	x := Default()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		x.Extract(text)
	}
}
