#!/usr/bin/env bash
# Rewrites README.md's table of environment variables from `prof --help-env-markdown`, which writes
# it from common/env_value.hpp: the table is never edited by hand (e2e:help fails when it is stale).
#   scripts/update-readme-env.sh [build/bin/prof]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prof=${1:-$root/build/bin/prof}
table=$("$prof" --help-env-markdown)
TABLE=$table python3 - "$root/README.md" <<'PY'
import os, re, sys
path = sys.argv[1]
text = open(path).read()
begin = re.search(r"<!-- begin prof --help-env-markdown[^>]*-->\n", text)
end = text.index("<!-- end prof --help-env-markdown -->")
text = text[:begin.end()] + os.environ["TABLE"] + "\n" + text[end:]
open(path, "w").write(text)
PY
