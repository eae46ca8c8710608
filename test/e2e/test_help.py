"""e2e: prof's documents, read where people read them. --help fits the terminal (COLUMNS, at most
100) and shows real placeholders, never CLI11's TEXT or INT; the man page (--help-man) renders with
man/groff without a warning; the bash completion, sourced in bash, completes option names, known
values and files; the environment variables are listed in --help, the man page and README.md from
one table; the build wrote prof.1 and the completions next to bin/.

    python3 test/e2e/test_help.py --prof build/bin/prof --bin-dir build/test-bin
"""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

import e2e_common as e2e

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir)
README = os.path.join(SOURCE, "README.md")
# Variables prof sets for its library from its options or its run, and the tests' own: not a user's.
SET_BY_PROF = {"PROF_RUN_DIR", "PROF_RUN_DIR_FALLBACK", "PROF_RUNTIMES", "PROF_CAPTURE", "PROF_CAPTURE_DELAY_NS",
               "PROF_CAPTURE_DURATION_NS", "PROF_DEVICE_TIMING", "PROF_TEST_PAUSE", "PROF_TEST_CLOCK_SKEW"}
# CLI11's default placeholders and repeat counts: a user expects DIR, FILE, N, BASE NEW.
CLI11_WORDS = re.compile(r"\b(TEXT|INT|UINT|FLOAT|BOOLEAN|ENUM)\b| x \d")


def prof_output(args, columns=None):
    env = {} if columns is None else {"COLUMNS": str(columns)}
    completed = e2e.run_prof(args, cwd=tempfile.gettempdir(), env=env)
    assert completed.returncode == 0, e2e.describe(completed)
    assert completed.stderr == "", e2e.describe(completed)
    return completed.stdout


def build_dir():
    return os.path.dirname(os.path.dirname(e2e.Config.prof))


class HelpTest(unittest.TestCase):
    def test_help_fits_the_terminal_and_never_100_columns_more(self):
        for columns, limit in ((100, 100), (80, 80), (60, 60), (300, 100), (None, 100)):
            with self.subTest(columns=columns):
                text = prof_output(["--help"], columns)
                too_long = [line for line in text.splitlines() if len(line) > limit]
                self.assertEqual(too_long, [], f"lines over {limit} columns")
                self.assertIn("Exit status:", text)

    def test_help_shows_placeholders_users_expect(self):
        text = prof_output(["--help"], 100)
        self.assertIsNone(CLI11_WORDS.search(text), CLI11_WORDS.findall(text))
        for shown in ("-d,--output-dir DIR", "--db FILE", "--index-range A:B", "--compare BASE NEW",
                      "--json-max-events N", "--wait-timeout SECONDS", "--output-format LIST",
                      "--trace-start on|off", "--format text|csv|json|markdown"):
            self.assertIn(shown, text)

    def test_help_groups_the_options(self):
        text = prof_output(["--help"], 100)
        headings = [line[:-1] for line in text.splitlines() if re.fullmatch(r"[A-Z][a-z ]+:", line)]
        for group in ("Tracing", "Outputs", "Recording window", "Reports from a database", "Compare", "General",
                      "Environment", "Examples"):
            self.assertIn(group, headings)
        # Every option is in a group: none left in CLI11's catch-all "Options".
        self.assertNotIn("Options", headings)

    def test_hidden_document_options_are_not_in_the_help(self):
        text = prof_output(["--help"], 100)
        for hidden in ("--help-man", "--completion", "--help-env-markdown"):
            self.assertNotIn(hidden, text)

    def test_environment_is_listed_from_one_table_in_help_man_and_readme(self):
        table = prof_output(["--help-env-markdown"])
        names = re.findall(r"^\| `([A-Z_]+)=", table, re.M)
        self.assertIn("PROF_BUFFER_RECORDS", names)
        self.assertIn("PROF_KEEP_RUN_DIR", names)
        self.assertIn("PROF_SIM_DEVICES", names)
        self.assertIn("PROF_DEVICE_ACTIVITY", names)
        # Set by prof from its options: not the user's to set.
        self.assertNotIn("PROF_RUN_DIR", names)
        self.assertNotIn("PROF_CAPTURE", names)
        environment = prof_output(["--help"], 100).split("\nEnvironment:\n")[1].split("\n\n")[0]
        man = prof_output(["--help-man"])
        for name in names:
            self.assertIn(f"  {name}=", environment)
            self.assertIn(f"\\fB{name}\\fR=", man)
        with open(README) as stream:
            readme = stream.read()
        self.assertIn(table, readme, "README.md's table is stale: run scripts/update-readme-env.sh")

    def test_every_variable_prof_reads_is_documented_or_set_by_prof(self):
        # A getenv("PROF_...") added without a help line fails here, not in a user's hands.
        read = set()
        for folder in ("cli", "interpose", "sim", "collector", "common", "report"):
            for directory, _, files in os.walk(os.path.join(SOURCE, folder)):
                for name in files:
                    if name.endswith((".cpp", ".hpp", ".h")):
                        with open(os.path.join(directory, name), errors="replace") as stream:
                            text = stream.read()
                        read |= set(re.findall(r'getenv\("(PROF_[A-Z0-9_]+)"\)', text))
                        if name == "env_value.hpp":
                            read |= set(re.findall(r'\{\s*"(PROF_[A-Z0-9_]+)"', text))
        self.assertIn("PROF_KEEP_RUN_DIR", read)
        self.assertIn("PROF_BUFFER_RECORDS", read)
        documented = set(re.findall(r"^\| `([A-Z_]+)=", prof_output(["--help-env-markdown"]), re.M))
        self.assertEqual(sorted(read - documented - SET_BY_PROF), [], "read but neither documented nor set by prof")
        self.assertEqual(sorted(documented & SET_BY_PROF), [], "set by prof, yet offered to users")

    def test_man_page_renders_without_warnings(self):
        page = prof_output(["--help-man"])
        for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "ENVIRONMENT", "EXIT STATUS", "FILES",
                        "EXAMPLES"):
            self.assertRegex(page, rf"(?m)^\.SH {section}$")
        self.assertRegex(page, r"(?m)^\.SS Tracing$")
        groff = shutil.which("groff")
        man = shutil.which("man")
        if not groff and not man:
            self.skipTest("neither man nor groff is installed (scripts/install-deps.sh --tests)")
        if groff:
            checked = subprocess.run([groff, "-man", "-Tutf8", "-ww", "-z"], input=page, capture_output=True,
                                     text=True)
            self.assertEqual((checked.returncode, checked.stderr), (0, ""), "groff warnings")
        if man:
            shown = subprocess.run([man, "--warnings", "-l", "-"], input=page, capture_output=True, text=True,
                                   env=dict(os.environ, MANWIDTH="80", MANPAGER="cat", PAGER="cat"))
            self.assertEqual((shown.returncode, shown.stderr), (0, ""), "man -l - warnings")
            self.assertIn("--index-range A:B", shown.stdout.replace("\u2010", "-"))

    def test_the_build_wrote_the_man_page_and_completions(self):
        built = os.path.join(build_dir(), "prof.1")
        if not os.path.exists(built):
            self.skipTest(f"{built}: prof not run from a build tree")
        with open(built) as stream:
            self.assertEqual(stream.read(), prof_output(["--help-man"]))
        for shell, name in (("bash", "prof.bash"), ("zsh", "_prof")):
            with open(os.path.join(build_dir(), "completions", name)) as stream:
                self.assertEqual(stream.read(), prof_output(["--completion", shell]), name)

    def test_unknown_completion_shell_is_a_usage_error(self):
        completed = e2e.run_prof(["--completion", "fish"], cwd=tempfile.gettempdir())
        self.assertEqual(completed.returncode, 2, e2e.describe(completed))
        self.assertEqual(len(completed.stderr.splitlines()), 1, e2e.describe(completed))


class BashCompletionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.holder = tempfile.TemporaryDirectory(prefix="prof-e2e-complete-")
        cls.dir = cls.holder.name
        cls.script = os.path.join(cls.dir, "prof.bash")
        with open(cls.script, "w") as stream:
            stream.write(prof_output(["--completion", "bash"]))
        for name in ("run1.db", "run2.db", "notes.txt"):
            open(os.path.join(cls.dir, name), "w").close()
        os.mkdir(os.path.join(cls.dir, "runs"))
        app = os.path.join(cls.dir, "my_app.sh")
        with open(app, "w") as stream:
            stream.write("#!/bin/sh\n")
        os.chmod(app, 0o755)

    @classmethod
    def tearDownClass(cls):
        cls.holder.cleanup()

    def complete(self, *words):
        """What _prof offers for the command line `words`, the last being the word under the cursor,
        split as bash splits it (`--format=csv` is three words: --format, =, csv)."""
        program = ('source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); '
                   'COMP_LINE="$*"; _prof; printf "%s\\n" "${COMPREPLY[@]}"')
        done = subprocess.run(["bash", "--norc", "-c", program, "bash", self.script, "prof"] + list(words),
                              cwd=self.dir, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        return [line for line in done.stdout.splitlines() if line]

    def test_option_names(self):
        offered = self.complete("--out")
        self.assertIn("--output-format", offered)
        self.assertIn("--output-dir", offered)
        self.assertNotIn("--db", offered)
        self.assertNotIn("--help-man", self.complete("--help"))

    def test_known_values(self):
        self.assertEqual(sorted(self.complete("--trace-start", "")), ["off", "on"])
        self.assertEqual(sorted(self.complete("--format", "=", "")), ["csv", "json", "markdown", "text"])
        self.assertEqual(self.complete("--output-format", "stats,tr"), ["stats,trace"])
        self.assertIn("stderr", self.complete("--summary-output", "std"))
        self.assertEqual(self.complete("--json-max-events", ""), [])

    def test_files_and_directories(self):
        self.assertEqual(sorted(self.complete("--db", "run")), ["run1.db", "run2.db", "runs"])
        self.assertEqual(self.complete("-d", "ru"), ["runs"])
        self.assertEqual(sorted(self.complete("--compare", "run1.db", "run")), ["run1.db", "run2.db", "runs"])

    def test_the_program_and_its_arguments(self):
        self.assertEqual(self.complete("--sim", "./my_"), ["./my_app.sh"])
        self.assertEqual(self.complete("--sim", "--", "./my_"), ["./my_app.sh"])
        # After the program, its own arguments: files, not prof's options.
        self.assertIn("notes.txt", self.complete("--sim", "./my_app.sh", "no"))
        self.assertNotIn("--output-format", self.complete("./my_app.sh", "--out"))


# Types `line` and a TAB into an interactive zsh on a pseudo-terminal (zpty) with _prof on its
# fpath, and reads the screen until `pattern` shows: the completion zsh really offers.
ZSH_TYPE_TAB = r"""
zmodload zsh/zpty
zpty z 'zsh -f -i'
zpty -w z "PS1='> '; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D; cd $1"
zpty -n -w z "$2"$'\t'
zpty -r z screen "$3"
"""


class ZshCompletionTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.zsh = shutil.which("zsh")
        cls.holder = tempfile.TemporaryDirectory(prefix="prof-e2e-zsh-")
        cls.dir = cls.holder.name
        with open(os.path.join(cls.dir, "_prof"), "w") as stream:
            stream.write(prof_output(["--completion", "zsh"]))
        for name in ("abc.db", "abd.db"):
            open(os.path.join(cls.dir, name), "w").close()
        app = os.path.join(cls.dir, "my_app.sh")
        with open(app, "w") as stream:
            stream.write("#!/bin/sh\n")
        os.chmod(app, 0o755)

    @classmethod
    def tearDownClass(cls):
        cls.holder.cleanup()

    def test_script_parses(self):
        with open(os.path.join(self.dir, "_prof")) as stream:
            script = stream.read()
        self.assertTrue(script.startswith("#compdef prof\n"))
        self.assertIn("--output-format=", script)
        if not self.zsh:
            self.skipTest("zsh is not installed (scripts/install-deps.sh --tests): only the script's shape is checked")
        checked = subprocess.run([self.zsh, "-n"], input=script, capture_output=True, text=True)
        self.assertEqual((checked.returncode, checked.stderr), (0, ""))

    def test_zsh_completes_options_values_files_and_the_program(self):
        if not self.zsh:
            self.skipTest("zsh is not installed (scripts/install-deps.sh --tests)")
        # What is typed, and what only completion can have put on the screen.
        for line, shown in (("prof --output-f", "*--output-format*"), ("prof --format=mark", "*--format=markdown*"),
                            ("prof --db ab", "*abd.db*"), ("prof --sim ./my_", "*./my_app.sh*")):
            with self.subTest(line=line):
                # The timeout is a hang guard: zpty -r waits until the pattern shows.
                done = subprocess.run([self.zsh, "-f", "-c", ZSH_TYPE_TAB, "zsh", self.dir, line, shown],
                                      capture_output=True, text=True, timeout=60)
                self.assertEqual(done.returncode, 0, done.stdout[-500:] + done.stderr)


if __name__ == "__main__":
    e2e.main()
