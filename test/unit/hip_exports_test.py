#!/usr/bin/env python3
"""Every function Debian's libamdhip64.so.5 exports is a row of runtimes/hip/hip_api.def (hip*,
__hip* and the C++-mangled entry points), is hooked by prof's preload library under the exact
symbol, and is exported by the simulated libamdhip64 at the same symbol version. Fails naming
each missing function. Usage: hip_exports_test.py REAL_LIB PRELOAD_LIB SIM_LIB HIP_API_DEF"""
import re
import subprocess
import sys


def exports(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
    symbols = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TWi":
            name, _, version = parts[2].partition("@")
            symbols[name] = version.lstrip("@")
    return symbols


def main():
    real_lib, preload_lib, sim_lib, table = sys.argv[1:5]
    real, preload, sim = exports(real_lib), exports(preload_lib), exports(sim_lib)
    text = open(table).read()
    rows = set(re.findall(r"^PROF_HIP_API\((\w+),", text, re.M))
    rows |= set(re.findall(r'^PROF_HIP_API_CXX\(\w+, "(\w+)"', text, re.M))
    failures = []
    for symbol in sorted(real):
        in_table = symbol.startswith(("hip", "__hip")) or re.match(r"_Z(N8hip_impl)?\d+hip", symbol)
        if in_table and symbol not in rows:
            failures.append("%s is exported by %s but is not a row of hip_api.def" % (symbol, real_lib))
        if in_table and symbol not in preload:
            failures.append("%s is not hooked (not exported by %s)" % (symbol, preload_lib))
        if symbol not in sim:
            failures.append("%s is not exported by the simulated %s" % (symbol, sim_lib))
        elif sim[symbol] != real[symbol]:
            failures.append("%s is at %s in the simulated library, %s in the real one" % (symbol, sim[symbol],
                                                                                          real[symbol]))
    for symbol in sorted(rows - set(real)):
        failures.append("%s is a row of hip_api.def but %s does not export it" % (symbol, real_lib))
    for f in failures:
        print(f)
    print("%d exports of %s checked: %d problems" % (len(real), real_lib, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
