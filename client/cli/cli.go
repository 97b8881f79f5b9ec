// Package cli is the ihmt command line: the memory for people and scripts.
// Every command prints readable text, or JSON with --json; every error says
// what went wrong and what to do next, and ends in a non-zero exit status.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/ihmt-dev/ihmt/client"
	"github.com/ihmt-dev/ihmt/client/project"
	"github.com/ihmt-dev/ihmt/pkg/version"
	ihmtv1 "github.com/ihmt-dev/ihmt/proto/ihmt/v1"
)

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

const usage = `ihmt — long-term memory for coding agents

Usage: ihmt [--socket PATH] [--project KEY] <command> [flags] [args]

Memory:
  save TEXT...        save a memory ("-" reads it from stdin; --replaces ID|WORDS)
  search QUERY...     search memories (--as-of DATE, --known-at DATE, --clue WORDS)
  ask QUESTION...     search; at a terminal, ask for a clue while the answer is
                      ambiguous (elsewhere it answers as search does)
  get ID              show one memory with its full header
  ingest FILE|DIR|-   store documents as leaves, split without cutting a block
                      (--type, --domain, --tag, --scope)

Time and corrections:
  facts               the current value of every fact (--subject, --as-of, --known-at)
  timeline S::A       every value a subject's attribute has had, e.g. user::lives_in
  conflicts           every superseded value, with both values and dates, and the
                      probable supersessions inferred from how memories were worded
  mark-outdated OLD NEW
                      record that memory NEW corrects memory OLD
  unlink OLD NEW      undo a probable supersession that is wrong
  forget ID --reason  tombstone a memory: gone from every search
  restore ID          undo a forget
  purge ID            remove a forgotten memory's text from its file and the log

Review and audit:
  review              what agents saved that waits for you, newest first
  review approve ID   verify a memory (or accept a held correction)
  review reject ID    never return it again (--note WHY)
  log                 what each agent wrote (--agent, --session, --since)
  audit verify        check the log's hash chain for edits

Moving memories:
  export              every memory as JSON lines, on stdout (--scope)
  import FILE         restore an export exactly (twice changes nothing)
  import --from-ihmt-python DIR
                      migrate a store of the original Python IHMT
  sync init REMOTE    one memory across your machines, over a git remote
                      (a bare repository, ssh, a private hosting service)
  sync                sync now: send what is new here, receive the others'
  sync status         what waits each way, the last sync, the remote (--offline)

Daemon:
  status              daemon version, store, socket and counts
  rebuild             re-derive the index, fact timelines and summary tree from the leaf files
  tree                the summary tree as an outline (--depth N, 0 = all; --scope)
  consolidate         write pending summary branches now (--force: close partial groups)
  daemon start        start ihmtd if it is not running
  daemon stop         stop ihmtd cleanly
  daemon status       whether ihmtd answers

Setup:
  service install     run ihmtd as a systemd user service / launchd agent (--dry-run)
  service uninstall   stop and remove that service
  service status      whether the service is installed and running
  mcp install --client claude|codex|opencode
                      register ihmt-mcp with an agent and add IHMT's instructions
                      (--scope user|project, --dry-run, --uninstall)
  mcp config --client claude|codex|opencode
                      print the configuration to paste instead
  doctor              check binaries, paths, daemon, store, service and agents
  ui                  a page in your browser to explore, diagnose and review the
                      memory, on 127.0.0.1 only (--port N, --no-browser)
  context             the briefing a session starts with (--hook claude|codex|opencode|
                      gemini|copilot runs as that agent's hook; --event prompt
                      searches a prompt)

Project code (what an agent's project tools see):
  project-map [DIR]   the project's files with their size in tokens (--detail symbols)
  find-code QUERY...  the function, type or method that answers a question
  read-file PATH      a file of the project

Other:
  demo                a daemon, two agents' shims and a real save/search round trip
  version             print versions
  help [COMMAND]      this list, or one command's help (as COMMAND --help)

Every command takes --json (JSON for scripts, on stdout). Each command's flags and
an example: ihmt COMMAND --help. Environment: IHMT_HOME (store), IHMT_SOCKET
(socket), IHMT_PROJECT (project key).
`

// commands are the CLI's commands by name; each gets the arguments after
// its name.
var commands = map[string]func(*env, []string) error{
	"save":          cmdSave,
	"search":        cmdSearch,
	"get":           cmdGet,
	"status":        cmdStatus,
	"daemon":        cmdDaemon,
	"demo":          cmdDemo,
	"version":       cmdVersion,
	"ingest":        cmdIngest,
	"rebuild":       cmdRebuild,
	"tree":          cmdTree,
	"consolidate":   cmdConsolidate,
	"ask":           cmdAsk,
	"facts":         cmdFacts,
	"timeline":      cmdTimeline,
	"conflicts":     cmdConflicts,
	"mark-outdated": cmdMarkOutdated,
	"unlink":        cmdUnlink,
	"forget":        cmdForget,
	"restore":       cmdRestore,
	"purge":         cmdPurge,
	"review":        cmdReview,
	"log":           cmdLog,
	"audit":         cmdAudit,
	"export":        cmdExport,
	"import":        cmdImport,
	"sync":          cmdSync,
	"service":       cmdService,
	"mcp":           cmdMCP,
	"doctor":        cmdDoctor,
	"context":       cmdContext,
	"ui":            cmdUI,
	"project-map":   cmdProjectMap,
	"find-code":     cmdFindCode,
	"read-file":     cmdReadFile,
}

// help is registered apart: its function reads the commands table.
func init() { commands["help"] = cmdHelpCommand }

// env is what a command runs with.
type env struct {
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
	socket string
	proj   string // --project, else IHMT_PROJECT
	// usageArgs are the usage-line arguments of each flag set made by
	// flags, for its help.
	usageArgs map[*flag.FlagSet]string
	// stdin and tty stand in for the process's stdin and whether it is a
	// terminal, in tests of ask; nil means the real ones.
	stdin io.Reader
	tty   *bool
	// files is set by the commands that store what a person hands in (save,
	// ingest): from a directory above every project (see
	// project.AboveProjects) they file it as global. atHome says it did.
	files, atHome bool
	home          string // the home directory; "" reads $HOME
}

// Run runs the CLI with args (without the program name) and returns the exit
// status.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := &env{ctx: ctx, stdout: stdout, stderr: stderr}
	global := flag.NewFlagSet("ihmt", flag.ContinueOnError)
	global.SetOutput(stderr)
	global.Usage = func() {} // help goes to stdout, below; an error says how to get it
	global.StringVar(&e.socket, "socket", "", "daemon socket (default: $IHMT_SOCKET, else the per-user runtime dir)")
	global.StringVar(&e.proj, "project", os.Getenv("IHMT_PROJECT"), "project key (default: $IHMT_PROJECT, else the git repository of the working directory)")
	if err := global.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usage)
			return exitOK
		}
		fmt.Fprintln(stderr, "run `ihmt --help` for the commands and global flags")
		return exitUsage
	}
	rest := global.Args()
	if len(rest) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	run, ok := commands[rest[0]]
	if !ok {
		fmt.Fprintf(stderr, "ihmt: unknown command %q: run `ihmt help` for the list\n", rest[0])
		return exitUsage
	}
	if err := run(e, rest[1:]); err != nil {
		var help helpRequested
		if errors.As(err, &help) {
			if help.fs != nil {
				help.args = e.usageArgs[help.fs]
			}
			printHelp(stdout, help)
			return exitOK
		}
		if errors.Is(err, errReported) {
			return exitError
		}
		var ue usageError
		if errors.As(err, &ue) {
			if ue.msg != "" {
				fmt.Fprintf(stderr, "ihmt %s: %s\n", rest[0], ue.msg)
			}
			return exitUsage
		}
		fmt.Fprintf(stderr, "ihmt %s: %v\n", rest[0], err)
		return exitError
	}
	return exitOK
}

// errReported fails a command whose output already said what is wrong.
var errReported = errors.New("reported")

type usageError struct{ msg string }

func (u usageError) Error() string { return u.msg }

// flags returns a flag set for a command with --json registered; args is
// its usage line's arguments. A wrong flag is reported on stderr with how
// to get the command's help; the help itself (-h, --help) is printed by Run
// on stdout.
func (e *env) flags(name, args string) (*flag.FlagSet, *bool) {
	fs := flag.NewFlagSet("ihmt "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {}
	if e.usageArgs == nil {
		e.usageArgs = map[*flag.FlagSet]string{}
	}
	e.usageArgs[fs] = args
	return fs, fs.Bool("json", false, "print JSON for scripts")
}

// parse parses a subcommand's flags wherever they stand, so that
// `ihmt get ID --json` works like `ihmt get --json ID`, and returns the
// positional arguments. After "--" everything is positional, for text that
// starts with a dash.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, helpRequested{name: strings.TrimPrefix(fs.Name(), "ihmt "), fs: fs}
			}
			return nil, usageError{fmt.Sprintf("run `%s --help` for its flags", fs.Name())}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// noArgs parses a command that takes flags only.
func noArgs(fs *flag.FlagSet, args []string) error {
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q: %s takes only flags (see %s -h)", pos[0], fs.Name(), fs.Name())}
	}
	return nil
}

// ids parses a command that takes exactly n memory ids; hint is the usage
// line for a wrong count.
func ids(fs *flag.FlagSet, args []string, n int, hint string) ([]string, error) {
	pos, err := parse(fs, args)
	if err != nil {
		return nil, err
	}
	if len(pos) != n {
		return nil, usageError{hint}
	}
	return pos, nil
}

// saveScope reads a save's or an ingest's --scope.
func saveScope(s string) (ihmtv1.Scope, error) {
	sc, err := ihmtv1.ParseScope(s)
	if err != nil {
		return 0, usageError{"--" + err.Error()}
	}
	return sc, nil
}

// searchScope reads the --scope of a search or a listing.
func searchScope(s string) (ihmtv1.SearchScope, error) {
	sc, err := ihmtv1.ParseSearchScope(s)
	if err != nil {
		return 0, usageError{"--" + err.Error()}
	}
	return sc, nil
}

// call is what most commands come to once their arguments are read:
// connect to the daemon (starting it if needed), make one call, and print
// its answer — as JSON in the API's own field names with --json, else as
// text for a person.
func call[T proto.Message](e *env, asJSON bool, rpc func(*client.Client) (T, error), text func(T) error) error {
	return e.withClient(func(c *client.Client) error {
		resp, err := rpc(c)
		if err != nil {
			return err
		}
		if asJSON {
			return e.printProto(resp)
		}
		return text(resp)
	})
}

// withClient runs f with a connection to the daemon, started if need be.
func (e *env) withClient(f func(*client.Client) error) error {
	c, err := e.client(true)
	if err != nil {
		return err
	}
	defer c.Close()
	return f(c)
}

// caller identifies the CLI to the daemon: agent "ihmt-cli", a session per
// invocation, and the project of the working directory.
func (e *env) caller() (*ihmtv1.Caller, error) {
	dir, _ := os.Getwd()
	key, err := project.Detect(e.proj, nil, dir)
	if err != nil {
		return nil, fmt.Errorf("determine the project: %w (pass --project KEY or set IHMT_PROJECT)", err)
	}
	if e.files && strings.TrimSpace(e.proj) == "" {
		home := e.home
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		if above, err := project.AboveProjects(dir, home); err == nil && above {
			key, e.atHome = "", true
		}
	}
	return &ihmtv1.Caller{AgentName: ihmtv1.PersonAgent, AgentVersion: version.Version, SessionId: client.NewSessionID(), Project: key}, nil
}

// client connects to the daemon; autoStart starts one if none answers.
func (e *env) client(autoStart bool) (*client.Client, error) {
	c, err := e.caller()
	if err != nil {
		return nil, err
	}
	return client.New(client.Options{Socket: e.socket, Caller: c, AutoStart: autoStart})
}

func (e *env) printJSON(v any) error {
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printProto prints an API message as JSON with the proto field names, the
// same shape grpcurl shows, and numbers as numbers (see marshalProto).
func (e *env) printProto(m proto.Message) error {
	b, err := marshalProto(m)
	if err != nil {
		return err
	}
	_, err = e.stdout.Write(append(b, '\n'))
	return err
}

// warnVersion tells the person once a call has shown the daemon to be of
// another version.
func (e *env) warnVersion(c *client.Client) {
	if m := c.VersionMismatch(); m != "" {
		fmt.Fprintf(e.stderr, "warning: %s\n", m)
	}
}

func cmdVersion(e *env, args []string) error {
	fs, asJSON := e.flags("version", "")
	if err := noArgs(fs, args); err != nil {
		return err
	}
	out := map[string]string{"ihmt": version.Version}
	if commit, date := version.Build(); commit != "" || date != "" {
		out["commit"], out["date"] = commit, date
	}
	if c, err := e.client(false); err == nil {
		defer c.Close()
		ctx, cancel := context.WithTimeout(e.ctx, 2*time.Second)
		defer cancel()
		if st, err := c.Stats(ctx); err == nil {
			out["ihmtd"] = st.GetVersion()
		}
	}
	if *asJSON {
		return e.printJSON(out)
	}
	fmt.Fprintf(e.stdout, "ihmt %s\n", version.Describe())
	if v, ok := out["ihmtd"]; ok {
		fmt.Fprintf(e.stdout, "ihmtd %s (running)\n", v)
	} else {
		fmt.Fprintln(e.stdout, "ihmtd not running")
	}
	return nil
}
