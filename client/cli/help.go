package cli

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Help: `ihmt --help`, `ihmt CMD --help` (or -h), `ihmt CMD SUB --help` and
// `ihmt help CMD [SUB]` all print to stdout and exit 0, so `| less` works.
// Each command's help says what it does, its usage and flags (read from its
// own flag set, so the flags listed are the flags it takes) and examples.

// cmdHelp is what the help of one command or subcommand says besides its
// flags.
type cmdHelp struct {
	what     string   // what the command does, in a sentence or two
	examples []string // command lines a person can copy
	subs     []string // for a command of subcommands: their names, in order
}

// helps holds every command's and subcommand's help, by the words that
// name it ("save", "daemon start"). TestHelpEveryCommand walks it against
// the command table.
var helps = map[string]cmdHelp{
	"save": {what: "Save one memory, under this repository's project (from the home directory, which is no project, it is global). Its date is the one --date gives, else a date the text opens with, else now; the answer says which was used.",
		examples: []string{`ihmt save "2024-03-11 We chose PostgreSQL 17 for staging: the importer needs MERGE … RETURNING."`, `ihmt save --scope global "I prefer table-driven tests."`, `git log -1 --format=%B | ihmt save -`}},
	"search": {what: "Search the memories of this project and the global ones; answers found, ambiguous (with candidates to tell apart with --clue) or not_found.",
		examples: []string{"ihmt search which database does staging use", "ihmt search --as-of 2024-12-31 where do I live", "ihmt search --scope all redis"}},
	"ask": {what: "Search, and at a terminal ask for a detail that tells the candidates apart while the answer is ambiguous. Elsewhere (a pipe, a script, --json) it answers as search does.",
		examples: []string{"ihmt ask who reviews my pull requests"}},
	"get":    {what: "Show one memory with its full header: dates, scope, agent, trust, links.", examples: []string{"ihmt get 3f2a9c1b7d4e5f60", "ihmt get --all 3f2a9c1b7d4e5f60"}},
	"ingest": {what: "Store documents (files, directories, or stdin) as memories, split without cutting a block; a file holding a likely secret is refused with its line and kind.", examples: []string{"ihmt ingest ~/notes README.md", "ihmt ingest --type code --tag payments src/"}},
	"facts":  {what: "The current value of every fact the memories state (who you are, where things run).", examples: []string{"ihmt facts", "ihmt facts --subject user --as-of 2024-12-31"}},
	"timeline": {what: "Every value one subject's attribute has had, oldest first, with the memory that said it.",
		examples: []string{"ihmt timeline user::lives_in"}},
	"conflicts": {what: "Every superseded value, with both values and dates, and the probable supersessions inferred from how memories were worded.", examples: []string{"ihmt conflicts"}},
	"mark-outdated": {what: "Record that memory NEW corrects memory OLD: searches about now rank NEW first and mark OLD outdated.",
		examples: []string{"ihmt mark-outdated 3f2a9c1b7d4e5f60 9b8c7d6e5f4a3b21"}},
	"unlink":  {what: "Undo a probable supersession that is wrong: OLD is current again beside NEW.", examples: []string{"ihmt unlink 3f2a9c1b7d4e5f60 9b8c7d6e5f4a3b21"}},
	"forget":  {what: "Tombstone a memory: it leaves every search and timeline; saving the same text again is refused until restored.", examples: []string{`ihmt forget 3f2a9c1b7d4e5f60 --reason "wrong project"`}},
	"restore": {what: "Undo a forget.", examples: []string{"ihmt restore 3f2a9c1b7d4e5f60"}},
	"purge":   {what: "Remove a forgotten memory's text from its file and from the log, for good.", examples: []string{"ihmt purge 3f2a9c1b7d4e5f60"}},
	"review": {what: "List what agents saved that waits for you, newest first; approve (verify) or reject one.",
		examples: []string{"ihmt review", "ihmt review approve 3f2a9c1b7d4e5f60", `ihmt review reject 3f2a9c1b7d4e5f60 --note "not how we deploy"`}},
	"log":    {what: "What each agent wrote and read, newest first.", examples: []string{"ihmt log", "ihmt log --agent claude-code --since 2026-12-01"}},
	"audit":  {what: "Check the log's hash chain: an edited or removed entry breaks it, and the answer says where.", examples: []string{"ihmt audit verify"}},
	"export": {what: "Write every memory in scope as JSON lines on stdout (the records are JSON already; --json makes the closing count on stderr JSON too).", examples: []string{"ihmt export > memories.jsonl", "ihmt export --scope global > global.jsonl"}},
	"import": {what: "Restore an export exactly (importing it twice changes nothing), or migrate a store of the original Python IHMT.",
		examples: []string{"ihmt import memories.jsonl", "ihmt import --from-ihmt-python ~/.ihmt"}},
	"status":      {what: "The daemon's version, store, socket and counts.", examples: []string{"ihmt status"}},
	"rebuild":     {what: "Re-derive the index, fact timelines and summary tree from the leaf files.", examples: []string{"ihmt rebuild"}},
	"tree":        {what: "The summary tree as an outline: each branch titled by what its memories share.", examples: []string{"ihmt tree", "ihmt tree --depth 0 --scope all"}},
	"consolidate": {what: "Write pending summary branches now instead of waiting for the daemon to.", examples: []string{"ihmt consolidate", "ihmt consolidate --force"}},
	"daemon": {what: "Start, stop or ask after ihmtd, the daemon that owns the memory.", subs: []string{"start", "stop", "status"},
		examples: []string{"ihmt daemon status"}},
	"daemon start":  {what: "Start ihmtd unless one answers; one started this way stays until stopped.", examples: []string{"ihmt daemon start"}},
	"daemon stop":   {what: "Stop ihmtd cleanly and wait until it has.", examples: []string{"ihmt daemon stop"}},
	"daemon status": {what: "Whether ihmtd answers on its socket (exit 1 when not).", examples: []string{"ihmt daemon status"}},
	"service": {what: "Run ihmtd as a systemd user service or a launchd agent, so it is always there.", subs: []string{"install", "uninstall", "status"},
		examples: []string{"ihmt service install --dry-run"}},
	"service install":   {what: "Write the unit (or plist) with absolute paths, enable and start it.", examples: []string{"ihmt service install", "ihmt service install --dry-run"}},
	"service uninstall": {what: "Stop and remove the service.", examples: []string{"ihmt service uninstall"}},
	"service status":    {what: "Whether the service is installed and running (exit 1 when not).", examples: []string{"ihmt service status"}},
	"mcp": {what: "Register ihmt-mcp with an agent (Claude Code, Codex, opencode), with IHMT's instructions and hooks.", subs: []string{"install", "uninstall", "config"},
		examples: []string{"ihmt mcp install --client claude", "ihmt mcp config --client codex"}},
	"mcp install":   {what: "Register ihmt-mcp with the agent, add IHMT's instructions and its hooks; a second run changes nothing.", examples: []string{"ihmt mcp install --client claude", "ihmt mcp install --client codex --dry-run"}},
	"mcp uninstall": {what: "Take the registration, the instructions and the hooks out again.", examples: []string{"ihmt mcp uninstall --client opencode"}},
	"mcp config":    {what: "Print the configuration snippet to paste by hand instead.", examples: []string{"ihmt mcp config --client claude"}},
	"sync": {what: "Keep this memory the same on your other machines, over a git remote you own: `ihmt sync init REMOTE` once on each machine, then `ihmt sync` (or [sync] interval in config.toml); `ihmt sync status` says what waits each way.",
		examples: []string{"ihmt sync init git@github.com:you/ihmt-memory.git", "ihmt sync", "ihmt sync status --offline"}},
	"doctor": {what: "Check binaries, paths, daemon, store, service and agents, and say how to fix what is wrong.", examples: []string{"ihmt doctor"}},
	"ui":     {what: "Serve a page to explore, diagnose and review the memory, on 127.0.0.1 only, and open it.", examples: []string{"ihmt ui", "ihmt ui --port 8765 --no-browser"}},
	"context": {what: "The briefing a session starts with for this directory, or (--event prompt) the memory a prompt would get; --hook runs as an agent's hook.",
		examples: []string{"ihmt context", `ihmt context --event prompt --prompt "which database does staging use"`}},
	"project-map": {what: "The map of a project's files with their size in tokens, as the project_map tool gives an agent; --detail symbols adds each declaration.",
		examples: []string{"ihmt project-map", "ihmt project-map --detail symbols --subpath client"}},
	"find-code": {what: "Find the function, type or method that answers a question about the code, as the find_code tool does.",
		examples: []string{"ihmt find-code where is the socket permission checked"}},
	"read-file": {what: "Read a project file as the read_file tool does (the CLI is a new session each time, so it is always whole).",
		examples: []string{"ihmt read-file client/cli/cli.go"}},
	"demo":    {what: "Start a daemon on a throw-away store, two agents' shims, and make a real save and search between them.", examples: []string{"ihmt demo", "ihmt demo --keep"}},
	"version": {what: "Print the versions of ihmt and of the running ihmtd.", examples: []string{"ihmt version"}},
	"help":    {what: "Print the list of commands, or one command's help.", examples: []string{"ihmt help", "ihmt help mcp install"}},
}

// helpRequested is what parsing returns for -h or --help: Run prints the
// help of the command named and exits 0.
type helpRequested struct {
	name string        // "save", "daemon start"
	fs   *flag.FlagSet // nil for a command of subcommands
	args string        // the usage line's arguments
}

func (h helpRequested) Error() string { return "help requested for " + h.name }

// isHelp reports whether a word asks for help rather than naming something.
func isHelp(s string) bool { return s == "-h" || s == "--help" || s == "-help" || s == "help" }

// printHelp writes one command's help to w.
func printHelp(w io.Writer, h helpRequested) {
	ch := helps[h.name]
	fmt.Fprintf(w, "ihmt %s — %s\n\n", h.name, ch.what)
	if len(ch.subs) > 0 {
		fmt.Fprintf(w, "Usage: ihmt %s <%s> [flags]\n\nCommands:\n", h.name, strings.Join(ch.subs, "|"))
		for _, s := range ch.subs {
			fmt.Fprintf(w, "  %-10s %s\n", s, helps[h.name+" "+s].what)
		}
		fmt.Fprintf(w, "\nEach one's flags: ihmt %s <command> --help\n", h.name)
	} else {
		fmt.Fprintf(w, "Usage: ihmt %s [flags]%s\n", h.name, prefixed(" ", h.args))
		if h.fs != nil {
			fmt.Fprintln(w, "\nFlags:")
			out := h.fs.Output()
			h.fs.SetOutput(w)
			h.fs.PrintDefaults()
			h.fs.SetOutput(out)
		}
	}
	if len(ch.examples) > 0 {
		fmt.Fprintln(w, "\nExamples:")
		for _, ex := range ch.examples {
			fmt.Fprintf(w, "  %s\n", ex)
		}
	}
}

// subcommand splits a command of subcommands' arguments into the
// subcommand and the rest; help for the command itself, and a missing or
// unknown subcommand, come back as errors Run reports.
func subcommand(name string, args []string) (string, []string, error) {
	subs := helps[name].subs
	if len(args) == 0 {
		return "", nil, usageError{fmt.Sprintf("say %s (ihmt %s --help says what each does)", orWords(subs), name)}
	}
	if isHelp(args[0]) {
		return "", nil, helpRequested{name: name}
	}
	if !slices.Contains(subs, args[0]) {
		return "", nil, usageError{fmt.Sprintf("unknown %s command %q: say %s", name, args[0], orWords(subs))}
	}
	return args[0], args[1:], nil
}

// orWords joins words as a sentence does: "a, b or c".
func orWords(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// cmdHelpCommand is `ihmt help [CMD [SUB]]`: the list of commands, or one
// command's help, which is what `ihmt CMD [SUB] --help` prints.
func cmdHelpCommand(e *env, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(e.stdout, usage)
		return nil
	}
	if isHelp(args[0]) {
		return helpRequested{name: "help"}
	}
	name := strings.Join(args, " ")
	if _, ok := helps[name]; !ok {
		return usageError{fmt.Sprintf("no command %q: run `ihmt help` for the list", name)}
	}
	if len(args) > 2 || args[0] == "help" {
		return helpRequested{name: name}
	}
	run := commands[args[0]]
	return run(e, append(args[1:], "--help"))
}
