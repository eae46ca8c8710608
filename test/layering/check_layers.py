"""The tree's layers (docs/design.md): each top-level folder may include only the folders below
it, so data and dependencies run one way. Fails naming every include that runs up a layer.

    python3 test/layering/check_layers.py [SOURCE_DIR]

common/ and runtimes/ (facts: records, clocks, the vendors' tables) are the bottom; db/ (SQLite,
schema) sits on them; collector/, report/, sim/ and interpose/ each use those and never each
other; cli/ ties them together. Test code, samples and benchmarks may include anything.
"""
import os
import re
import sys

ALLOWED = {
    "common": {"common"},
    "runtimes": {"common", "runtimes"},
    "db": {"common", "runtimes", "db"},
    "collector": {"common", "runtimes", "db", "collector"},
    "report": {"common", "runtimes", "db", "report"},
    "sim": {"common", "runtimes", "sim"},
    "interpose": {"common", "runtimes", "interpose"},
    "cli": {"common", "runtimes", "db", "collector", "report", "interpose", "sim", "cli"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"/]+)/[^"]*"', re.M)


def violations(root):
    found = []
    for layer, allowed in ALLOWED.items():
        top = os.path.join(root, layer)
        for folder, _, files in os.walk(top):
            for name in files:
                if not name.endswith((".hpp", ".cpp", ".h", ".c", ".def", ".inc")):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for match in INCLUDE.finditer(text):
                    target = match.group(1)
                    if target in ALLOWED and target not in allowed:
                        line = text.count("\n", 0, match.start()) + 1
                        found.append(f"{os.path.relpath(path, root)}:{line}: {layer}/ includes {target}/")
    return found


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    bad = violations(os.path.abspath(root))
    for line in bad:
        print(line)
    if bad:
        print(f"{len(bad)} includes run up a layer (test/layering/check_layers.py says which may include which)")
        return 1
    print("layers: every include runs down")
    return 0


if __name__ == "__main__":
    sys.exit(main())
