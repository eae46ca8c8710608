"""The house's two mechanical rules (issue 39, ../shared/STYLE.md): every function of prof's own
code is under 80 lines, and the C++ tree is formatted with the repository's .clang-format.

    python3 test/style/check_style.py functions [SOURCE_DIR]   # universal-ctags measures functions
    python3 test/style/check_style.py format [SOURCE_DIR]      # clang-format --dry-run --Werror

Fails naming every function over the limit (file:line, its length) or every file clang-format
would change. Test code is measured too (Catch's TEST_CASE bodies are not functions to ctags),
except the sample programs of test/apps: each plays a user's program, whose main() is the script
of calls the e2e tests expect, in order, at known lines. Those are formatted all the same. Both tools come from Debian
(scripts/install-deps.sh --tests: universal-ctags, clang-format).
"""
import os
import shutil
import subprocess
import sys

LIMIT = 80
SOURCE_DIRS = ["cli", "collector", "common", "db", "interpose", "report", "runtimes", "sim", "test"]
EXTENSIONS = (".cpp", ".hpp", ".h", ".c", ".cc")
SKIP_DIRS = {os.path.join("test", "golden"), os.path.join("test", "browser", "node_modules")}


def sources(root):
    for top in SOURCE_DIRS:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            rel = os.path.relpath(folder, root)
            dirs[:] = sorted(d for d in dirs if os.path.join(rel, d) not in SKIP_DIRS)
            for name in sorted(files):
                if name.endswith(EXTENSIONS):
                    yield os.path.join(folder, name)


def tool(*names):
    for name in names:
        if shutil.which(name):
            return name
    sys.exit(f"check_style: none of {', '.join(names)} found (scripts/install-deps.sh --tests installs it)")


def long_functions(root):
    ctags = tool("ctags-universal", "universal-ctags", "ctags")
    samples = os.path.join(root, "test", "apps") + os.sep
    files = [path for path in sources(root) if not path.startswith(samples)]
    # One ctags run for the whole tree; C and C++ files both parsed as C++ (.h headers hold C++).
    out = subprocess.run([ctags, "--language-force=C++", "--kinds-C++=f", "--fields=+ne", "-x",
                          "--_xformat=%{input}\t%{line}\t%{end}\t%{name}"] + files,
                         capture_output=True, text=True, check=True).stdout
    found = []
    for line in out.splitlines():
        path, begin, end, name = line.split("\t")
        if not end.isdigit() or not begin.isdigit():
            continue
        length = int(end) - int(begin) + 1
        if length > LIMIT:
            found.append(f"{os.path.relpath(path, root)}:{begin}: {name} is {length} lines")
    return found


def unformatted(root):
    clang_format = tool("clang-format", "clang-format-14")
    found = []
    for path in sources(root):
        done = subprocess.run([clang_format, "--dry-run", "--Werror", "--style=file", path],
                              capture_output=True, text=True)
        if done.returncode != 0:
            found.append(f"{os.path.relpath(path, root)}: not formatted (clang-format -i {os.path.relpath(path, root)})")
    return found


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ("functions", "format"):
        sys.exit(__doc__)
    root = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", ".."))
    bad = long_functions(root) if sys.argv[1] == "functions" else unformatted(root)
    for line in bad:
        print(line)
    if bad:
        what = f"functions over {LIMIT} lines" if sys.argv[1] == "functions" else "files not formatted"
        print(f"{len(bad)} {what}")
        return 1
    print("functions: all under 80 lines" if sys.argv[1] == "functions" else "format: clean")
    return 0


if __name__ == "__main__":
    sys.exit(main())
