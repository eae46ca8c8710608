"""The runtime roll call is written once, in runtimes/runtime_list.def (docs/design.md, "Adding a
runtime"). Fails naming every file:line of a hand-written roll call elsewhere.

    python3 test/runtime_roll/check_runtime_roll.py [SOURCE_DIR]

A runtime is named where one of its table's names (its `name` column: hip, musa, cnrt, ...) is a
word of an identifier, path or pattern: identifiers split at '_', digits and lower-to-upper case
changes, case ignored, so kMusaDescription, hooks_musa.cpp, PROF_MUSA_API and musa* name MUSA, while
musart (the library) and hiptx (the flag) name nobody. Counted is code: comments are dropped, and so
are string literals except those of #include lines (help prose names runtimes; includes are code).

A file is a roll call when it names three or more runtimes that it does not belong to: a list a new
runtime would have to join. Two is a pairing (the marker hooks serve roctx and mstx; HIP-only code
may mention MPI), not a list. A file belongs to a runtime when it lies under runtimes/<folder>/ or
its own name has the runtime's name as a word (hooks_musa.cpp, musa_adapter.hpp, musa_face.cpp).

Searched: the shipped code (cli, collector, common, db, interpose, report, runtimes, sim, cmake and
the top CMakeLists.txt). Not searched: runtimes/runtime_list.def itself, tests, docs and scripts,
which describe runtimes rather than enumerate them for the build. ALLOWED names the few files that
may still be roll calls, each with why; an entry that no longer is one fails too, so the list
shrinks with the code.
"""
import os
import re
import sys

TABLE = "runtimes/runtime_list.def"
SEARCHED = ("cli", "collector", "common", "db", "interpose", "report", "runtimes", "sim", "cmake")
SUFFIXES = (".hpp", ".cpp", ".h", ".c", ".def", ".inc", ".in", ".map", ".cmake", "CMakeLists.txt")
ALLOWED = {}

ENTRY = re.compile(r"^PROF_RUNTIME\((\w+),\s*(\w+),\s*(\w+),", re.M)
WORD = re.compile(r"[A-Za-z0-9_]+")
PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")


def runtimes(root):
    with open(os.path.join(root, TABLE), encoding="utf-8") as f:
        return [(name, folder) for _, name, folder in ENTRY.findall(f.read())]


def words(token):
    for piece in re.split(r"[_0-9]+", token):
        for part in PART.findall(piece):
            yield part.lower()


def code_lines(path, text):
    """Each line with comments and (outside #include lines) string literals blanked."""
    hash_comments = path.endswith((".cmake", "CMakeLists.txt"))
    out, in_block = [], False
    for line in text.split("\n"):
        kept, i, n = [], 0, len(line)
        is_include = re.match(r"\s*#\s*include\b", line) is not None
        while i < n:
            if in_block:
                end = line.find("*/", i)
                if end < 0:
                    i = n
                else:
                    in_block, i = False, end + 2
            elif hash_comments and line[i] == "#":
                i = n
            elif not hash_comments and line.startswith("//", i):
                i = n
            elif line.startswith("/*", i):
                in_block, i = True, i + 2
            elif line[i] == '"' and not is_include:
                end = i + 1
                while end < n and line[end] != '"':
                    end += 2 if line[end] == "\\" else 1
                kept.append('""')
                i = end + 1
            else:
                kept.append(line[i])
                i += 1
        out.append("".join(kept))
    return out


def belongs(rel, name, folder):
    if rel.startswith(f"runtimes/{folder}/"):
        return True
    return name in words(os.path.basename(rel).split(".")[0])


def searched_files(root):
    yield "CMakeLists.txt"
    for top in SEARCHED:
        for folder, _, files in os.walk(os.path.join(root, top)):
            for file in sorted(files):
                rel = os.path.relpath(os.path.join(folder, file), root).replace(os.sep, "/")
                if rel != TABLE and file.endswith(SUFFIXES):
                    yield rel


def roll_calls(root):
    """{file: {runtime name: [line numbers]}} for every file naming 3+ runtimes it is not theirs."""
    table = runtimes(root)
    found = {}
    for rel in searched_files(root):
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            lines = code_lines(rel, f.read())
        named = {}
        for number, line in enumerate(lines, 1):
            line_words = {w for token in WORD.findall(line) for w in words(token)}
            for name, folder in table:
                if name in line_words and not belongs(rel, name, folder):
                    named.setdefault(name, []).append(number)
        if len(named) >= 3:
            found[rel] = named
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    found = roll_calls(root)
    failures = []
    for rel, named in sorted(found.items()):
        if rel in ALLOWED:
            continue
        for name, numbers in sorted(named.items()):
            for number in numbers:
                failures.append(
                    f"{rel}:{number}: names {name} in a roll call of {len(named)} runtimes")
    for rel in sorted(ALLOWED):
        if rel not in found:
            failures.append(
                f"{rel}: allowed as a roll call but no longer is one: drop it from ALLOWED")
    for line in failures:
        print(line)
    counts = {name: sum(len(found[rel].get(name, [])) for rel in found)
              for name, _ in runtimes(root)}
    print("hand-written mentions in roll calls outside the table:",
          ", ".join(f"{name} {count}" for name, count in counts.items()))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
