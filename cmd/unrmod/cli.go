package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/unrmod/unrmod/internal/editdist"
	"github.com/unrmod/unrmod/safefile"
)

// streams are the outputs a command writes to: data on out, progress,
// warnings and errors on err; and the run's Session, which locks the files
// the command reads and writes and tracks its temporary files.
type streams struct {
	out, err io.Writer
	sess     *safefile.Session
}

// runner runs a command with its positional arguments, after its flags have
// been parsed.
type runner func(s streams, args []string) error

// command describes one subcommand: its help text and how to set it up.
type command struct {
	name        string   // e.g. "info"
	synopsis    string   // arguments and flags after the name
	summary     string   // one line for the command list
	description string   // paragraphs for "unrmod <name> --help"
	examples    []string // complete command lines
	// setup registers the command's flags on fs and returns the function
	// that runs it; the flags hold their parsed values when it is called.
	setup func(fs *flag.FlagSet) runner
}

// commands returns every command, in the order the help lists them.
func commands() []*command {
	return []*command{
		infoCommand(),
		dumpCommand(),
		propsCommand(),
		verifyCommand(),
		lsCommand(),
		extractCommand(),
		packCommand(),
		rewriteCommand(),
		convertCommand(),
		exportDataCommand(),
		exportTableCommand(),
		importTableCommand(),
		exportTextureCommand(),
		exportSoundCommand(),
		applyCommand(),
		recoverCommand(),
		diffCommand(),
		hashCommand(),
		helpCommand(),
		versionCommand(),
	}
}

// findCommand returns the command called name, or nil.
func findCommand(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// usageError is a mistake on the command line; it exits with status 2.
type usageError struct {
	cmd string // the command whose help to point at; "" for the top level
	msg string
}

func (e *usageError) Error() string { return e.msg }

// usagef returns a usage error for command cmd.
func usagef(cmd, format string, args ...any) error {
	return &usageError{cmd: cmd, msg: fmt.Sprintf(format, args...)}
}

// errReported means the command has already printed why it failed; run exits
// with status 1 without printing more.
var errReported = errors.New("failure already reported")

// run executes the command line args (without the program name) and returns
// the exit status: 0 on success, 1 on failure, 2 on a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	return runSession(newSession(stderr), args, stdout, stderr)
}

// newSession returns the Session of a run: lock files in the per-user
// folder (or $UNRMOD_LOCK_DIR), messages on stderr.
func newSession(stderr io.Writer) *safefile.Session {
	return &safefile.Session{LockDir: os.Getenv("UNRMOD_LOCK_DIR"), Log: func(msg string) {
		fmt.Fprintf(stderr, "unrmod: %s\n", msg)
	}}
}

// runSession is run with the given Session.
func runSession(sess *safefile.Session, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return exitCode(stderr, usagef("", "missing command"))
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		name = "help"
	case "-version", "--version":
		name = "version"
	}
	c := findCommand(name)
	if c == nil {
		if strings.HasPrefix(name, "-") {
			return exitCode(stderr, usagef("", "flag %s before the command; flags follow the command name", name))
		}
		return exitCode(stderr, usagef("", "unknown command %q", name))
	}
	return c.execute(args[1:], streams{stdout, stderr, sess})
}

// execute parses the command's flags, runs it and returns the exit status.
func (c *command) execute(args []string, s streams) (code int) {
	fs := c.flagSet()
	runFn := c.setup(fs)
	flags, positional := splitArgs(fs, args)
	if err := fs.Parse(flags); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			c.writeHelp(s.out, fs)
			return 0
		}
		return exitCode(s.err, usagef(c.name, "%s", flagError(fs, err)))
	}
	positional = append(fs.Args(), positional...)
	positional, err := expandGlobs(positional, globArgs(c.name))
	if err != nil {
		return exitCode(s.err, usagef(c.name, "%v", err))
	}
	defer func() {
		// Bad input must never crash the tool; a panic is a bug in unrmod.
		// The run's temporary files go, as on an interrupt: nothing was
		// renamed into place but whole batches.
		if r := recover(); r != nil {
			fmt.Fprintf(s.err, "unrmod: internal error: %v (please report this bug)\n%s", r, debug.Stack())
			if removed := s.sess.Interrupt(); len(removed) > 0 {
				fmt.Fprintf(s.err, "unrmod: removed %d temporary files of this run\n", len(removed))
			}
			code = 1
		}
	}()
	return exitCode(s.err, runFn(s, positional))
}

// flagError words a flag parsing error; an unknown flag is answered with
// the closest flag the command has.
func flagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	name, ok := strings.CutPrefix(msg, "flag provided but not defined: -")
	if !ok {
		return msg
	}
	name = strings.TrimLeft(name, "-")
	best, bestD := "", 4
	fs.VisitAll(func(f *flag.Flag) {
		if d := editdist.Distance(strings.ToLower(name), f.Name); d < bestD || (d == bestD && best != "" && f.Name < best) {
			best, bestD = f.Name, d
		}
	})
	if best != "" && bestD <= max(2, len(name)/3) && bestD < len(name) {
		return fmt.Sprintf("unknown flag --%s (did you mean --%s?)", name, best)
	}
	return fmt.Sprintf("unknown flag --%s", name)
}

// globArgs says how many leading arguments of a command are file names
// whose patterns unrmod expands itself: Windows shells pass *.utx through
// as it is. -1 means all.
func globArgs(cmd string) int {
	switch cmd {
	case "verify":
		return -1
	case "diff":
		return 2
	case "hash", "help", "version":
		return 0
	}
	return 1
}

// expandGlobs expands the patterns (*, ? and [...]) among the first n
// arguments (all when n < 0) into the files they match, sorted; a pattern
// that matches nothing is an error. Arguments without a pattern character
// are kept as they are.
func expandGlobs(args []string, n int) ([]string, error) {
	var out []string
	for i, a := range args {
		if (n >= 0 && i >= n) || !strings.ContainsAny(a, "*?[") {
			out = append(out, a)
			continue
		}
		if _, err := os.Stat(a); err == nil { // a file whose name holds [ or ?
			out = append(out, a)
			continue
		}
		matches, err := filepath.Glob(filepath.FromSlash(a))
		if err != nil {
			return nil, fmt.Errorf("bad pattern %q: %v", a, err)
		}
		if len(matches) == 0 {
			return nil, fmt.Errorf("no file matches %s", a)
		}
		out = append(out, matches...)
	}
	return out, nil
}

// flagSet returns an empty flag set for the command that reports errors
// instead of printing them.
func (c *command) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("unrmod "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// exitCode prints err to w when needed and returns the matching exit status.
func exitCode(w io.Writer, err error) int {
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		help := "unrmod --help"
		if ue.cmd != "" {
			help = "unrmod " + ue.cmd + " --help"
		}
		fmt.Fprintf(w, "unrmod: %s\nsee '%s'\n", ue.msg, help)
		return 2
	case errors.Is(err, errReported):
		return 1
	default:
		fmt.Fprintf(w, "unrmod: %s\n", errText(err))
		return 1
	}
}

// splitArgs separates flags (with their values) from positional arguments so
// that flags may appear anywhere on the command line. Both -name and --name
// are flags; "-" alone is an argument; "--" ends the flags. A flag that takes
// a value and is written without "=" consumes the next argument.
func splitArgs(fs *flag.FlagSet, args []string) (flags, positional []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimPrefix(a[1:], "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil && !isBoolFlag(f) && i+1 < len(args) {
			i++
			flags = append(flags, args[i])
		}
	}
	return flags, positional
}

// isBoolFlag reports whether f is a boolean flag, which takes no value.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// oneArg returns the single positional argument, or a usage error naming it.
func oneArg(cmd string, args []string, what string) (string, error) {
	switch {
	case len(args) == 0:
		return "", usagef(cmd, "missing %s", what)
	case len(args) > 1:
		return "", usagef(cmd, "too many arguments: want one %s, got %d (%s)", what, len(args), strings.Join(args, " "))
	}
	return args[0], nil
}

// writeHelp prints the command's help: synopsis, description, flags and
// examples.
func (c *command) writeHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", strings.TrimSpace("unrmod "+c.name+" "+c.synopsis), strings.TrimSpace(c.description))
	fmt.Fprintf(w, "\nFlags (before or after the arguments; -- ends them):\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		if def := f.DefValue; def != "" && !isBoolFlag(f) {
			usage += " (default " + def + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\n", strings.TrimSpace(flagName(f.Name)+" "+arg), usage)
	})
	fmt.Fprintf(tw, "  %s\t%s\n", "-h, --help", "show this help")
	tw.Flush()
	fmt.Fprintf(w, "\nExamples:\n")
	for _, e := range c.examples {
		fmt.Fprintf(w, "  %s\n", e)
	}
}

// flagName spells a flag as the help shows it: -o, --json.
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// writeMainHelp prints the top-level help.
func writeMainHelp(w io.Writer) {
	fmt.Fprint(w, `unrmod inspects, checks, patches and rewrites Unreal Engine files: legacy
UE1/UE2 packages (.u .utx .unr .uax .umx ...), cooked UE4/UE5 assets
(.uasset/.uexp) and the paks that hold them (.pak), and the zen packages of
UE 4.26-6.0 IoStore containers (.utoc/.ucas), which it also reads, lists,
extracts, verifies and packs; it converts between cooked assets and zen
packages.

Usage: unrmod <command> [flags] args

Commands:
`)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range commands() {
		fmt.Fprintf(tw, "  %s\t%s\n", c.name, c.summary)
	}
	tw.Flush()
	fmt.Fprint(w, `
Flags may appear before or after the arguments; -- ends them. Both -json and
--json work. Run 'unrmod <command> --help' for a command's flags and examples.

Exit status: 0 success, 1 failure (bad file, verification problems, write
error), 2 usage error.

Examples:
  unrmod info Maps/CTF-Face.unr
  unrmod verify System/*.u
  unrmod rewrite Maps/CTF-Face.unr -o /tmp/CTF-Face.unr --layout compact
  unrmod diff Maps/CTF-Face.unr /tmp/CTF-Face.unr
  unrmod props Maps/CTF-Face.unr LevelInfo0
  unrmod export-sound Sounds/Activates.uax -o sounds/
  unrmod apply examples/patches/set-property.yaml --dry-run
  unrmod ls Content/Paks/pakchunk0-Windows.utoc
  unrmod extract Content/Paks/pakchunk0-Windows.utoc -o out/ --filter '*.uasset'
  unrmod dump Paks/pakchunk0-Windows.utoc --package /Game/Data/Table_Items
  unrmod hash --export /Game/Props/BP_Crate.BP_Crate_C
`)
}

// helpCommand returns the "help" command.
func helpCommand() *command {
	return &command{
		name:     "help",
		synopsis: "[COMMAND]",
		summary:  "show help for unrmod or for one command",
		description: `Without an argument, list the commands. With a command name, show that
command's usage, flags and examples (the same as 'unrmod COMMAND --help').`,
		examples: []string{"unrmod help", "unrmod help rewrite"},
		setup: func(fs *flag.FlagSet) runner {
			return func(s streams, args []string) error {
				switch len(args) {
				case 0:
					writeMainHelp(s.out)
					return nil
				case 1:
					c := findCommand(args[0])
					if c == nil {
						return usagef("help", "unknown command %q", args[0])
					}
					fs := c.flagSet()
					c.setup(fs)
					c.writeHelp(s.out, fs)
					return nil
				}
				return usagef("help", "too many arguments: want at most one COMMAND")
			}
		},
	}
}

// versionCommand returns the "version" command.
func versionCommand() *command {
	return &command{
		name:        "version",
		synopsis:    "",
		summary:     "print the unrmod version",
		description: `Print the version of this unrmod binary (also: unrmod --version).`,
		examples:    []string{"unrmod version"},
		setup: func(fs *flag.FlagSet) runner {
			return func(s streams, args []string) error {
				if len(args) > 0 {
					return usagef("version", "version takes no arguments")
				}
				fmt.Fprintf(s.out, "unrmod %s\n", buildVersion())
				return nil
			}
		},
	}
}
