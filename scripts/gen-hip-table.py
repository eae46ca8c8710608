#!/usr/bin/env python3
"""Appends to runtimes/hip/hip_api.def a row for every function Debian's libamdhip64.so.5 exports
that the table lacks, with the prototype its headers declare, and writes the export list
(runtimes/hip/hip_exports.def) and the simulated library's version script (sim/libamdhip64.map).

Developer tool: needs clang++ (its JSON AST gives each declaration's exact types and, for the
C++-linkage exports, the mangled name), Debian's libamdhip64-dev headers and nm. The build never
runs it; the committed outputs are what the build uses. Ids are append-only: existing rows are
kept as they are and in their order, new rows go at the end (sorted by name, so a rerun on the same
inputs writes nothing new).

Usage: scripts/gen-hip-table.py [--lib /usr/lib/x86_64-linux-gnu/libamdhip64.so.5] [--check]
--check: exit 1 (naming the gaps) if the table, the export list or the map would change.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEF = os.path.join(ROOT, "runtimes/hip/hip_api.def")
EXPORTS = os.path.join(ROOT, "runtimes/hip/hip_exports.def")
MAP = os.path.join(ROOT, "sim/libamdhip64.map")
HEADERS = ["hip/hip_runtime_api.h", "hip/hip_ext.h", "hip/hiprtc.h"]

# Exported by libamdhip64 5.2 but declared in no public header: prototypes from ROCm/hipamd
# src/hip_platform.cpp and src/hip_intercept.cpp (extern "C"; hip::FatBinaryInfo** spelled void**).
UNDECLARED = {
    "__hipRegisterVar": ("void", [("void**", "modules"), ("void*", "var"), ("char*", "hostVar"),
                                  ("char*", "deviceVar"), ("int", "ext"), ("size_t", "size"),
                                  ("int", "constant"), ("int", "global")]),
    "__hipRegisterManagedVar": ("void", [("void*", "hipModule"), ("void**", "pointer"), ("void*", "init_value"),
                                         ("const char*", "name"), ("size_t", "size"), ("unsigned", "align")]),
    "__hipRegisterSurface": ("void", [("void**", "modules"), ("void*", "var"), ("char*", "hostVar"),
                                      ("char*", "deviceVar"), ("int", "type"), ("int", "ext")]),
    "__hipRegisterTexture": ("void", [("void**", "modules"), ("void*", "var"), ("char*", "hostVar"),
                                      ("char*", "deviceVar"), ("int", "type"), ("int", "norm"), ("int", "ext")]),
    "hipInitActivityCallback": ("void", [("void*", "id_callback"), ("void*", "op_callback"), ("void*", "arg")]),
    "hipEnableActivityCallback": ("bool", [("unsigned", "op"), ("bool", "enable")]),
    "hipGetCmdName": ("const char*", [("unsigned", "op")]),
    # C++ linkage, namespace hip_impl; the header's inline copy is hidden and HIP-mode only.
    "_ZN8hip_impl22hipLaunchKernelGGLImplEmRK4dim3S2_jP12ihipStream_tPPv": (
        "void", [("uintptr_t", "function_address"), ("const dim3&", "numBlocks"), ("const dim3&", "dimBlocks"),
                 ("uint32_t", "sharedMemBytes"), ("hipStream_t", "stream"), ("void**", "kernarg")]),
}
QUALIFIED = {"_ZN8hip_impl22hipLaunchKernelGGLImplEmRK4dim3S2_jP12ihipStream_tPPv": "hip_impl::hipLaunchKernelGGLImpl"}

# The columns of the rows that enqueue device work or allocate (runtimes/hip/hip_description.hpp
# lists the allocation roles): name -> (activity, stream, bytes, aux, post). Helpers are in
# interpose/adapters/hip_adapter.hpp. Every other row is kNone, its first stream argument, 0, 0.
PT = "hipStreamPerThread"
def copy(stream, bytes_, aux, sync, post=""):
    return ("kCopySync" if sync else "kCopy", stream, bytes_, aux, post)
def mset(stream, bytes_, sync):
    return ("kMemsetSync" if sync else "kMemset", stream, bytes_, "prof::CopyDirection::kMemset", "")
def alloc(bytes_, aux):
    return ("kNone", None, bytes_, aux, "")
KIND = "prof_direction(kind)"
# A host<->device copy's host pointer (api_args `host_ptr`, interpose/hook_support.hpp on_host_copy).
HOST = "prof_on_host_copy(prof_direction(kind), dst, src);"
ROWS = {
    # kernels
    "hipLaunchKernel_spt": ("kKernel", "prof_spt_stream(stream)", "0", "0",
                            "prof_on_launch(function_address, numBlocks, dimBlocks, sharedMemBytes);"),
    "hipLaunchCooperativeKernel_spt": ("kKernel", "prof_spt_stream(hStream)", "0", "0",
                                       "prof_on_launch(f, gridDim, blockDim, sharedMemBytes);"),
    "hipExtModuleLaunchKernel": ("kKernel", "hStream", "0", "0",
                                 "prof_on_launch(f, prof_hip_grid(globalWorkSizeX, globalWorkSizeY, globalWorkSizeZ, "
                                 "localWorkSizeX, localWorkSizeY, localWorkSizeZ), dim3{localWorkSizeX, localWorkSizeY, "
                                 "localWorkSizeZ}, sharedMemBytes);"),
    "hipHccModuleLaunchKernel": ("kKernel", "hStream", "0", "0",
                                 "prof_on_launch(f, prof_hip_grid(globalWorkSizeX, globalWorkSizeY, globalWorkSizeZ, "
                                 "localWorkSizeX, localWorkSizeY, localWorkSizeZ), dim3{localWorkSizeX, localWorkSizeY, "
                                 "localWorkSizeZ}, sharedMemBytes);"),
    "hipLaunchKernelGGLImpl": ("kKernel", "stream", "0", "0",
                               "prof_on_launch(reinterpret_cast<const void*>(function_address), numBlocks, dimBlocks, "
                               "sharedMemBytes);"),
    # One record for the whole multi-device launch, timed on the first entry's stream.
    "hipLaunchCooperativeKernelMultiDevice": ("kKernel", "prof_hip_first_launch_stream(launchParamsList, numDevices)",
                                              "0", "numDevices",
                                              "prof_hip_on_multi_launch(launchParamsList, numDevices);"),
    "hipExtLaunchMultiKernelMultiDevice": ("kKernel", "prof_hip_first_launch_stream(launchParamsList, numDevices)",
                                           "0", "numDevices", "prof_hip_on_multi_launch(launchParamsList, numDevices);"),
    # hipConfigureCall's configuration is what hipLaunchByPtr launches (a thread-local stack).
    "hipConfigureCall": ("kNone", "stream", "0", "0", "prof_hip_on_configure_call(gridDim, blockDim, sharedMem, stream);"),
    "hipLaunchByPtr": ("kKernel", "prof_hip_configured_stream()", "0", "0", "prof_hip_on_launch_by_ptr(func);"),
    # copies
    "hipMemcpyWithStream": copy("stream", "sizeBytes", KIND, True, HOST),
    "hipMemcpy_spt": copy(PT, "sizeBytes", KIND, True, HOST),
    "hipMemcpyAsync_spt": copy("prof_spt_stream(stream)", "sizeBytes", KIND, False, HOST),
    "hipMemcpyToSymbol": copy("0", "sizeBytes", KIND, True, "prof_on_host_copy(prof_direction(kind), symbol, src);"),
    "hipMemcpyToSymbol_spt": copy(PT, "sizeBytes", KIND, True, "prof_on_host_copy(prof_direction(kind), symbol, src);"),
    "hipMemcpyToSymbolAsync": copy("stream", "sizeBytes", KIND, False, "prof_on_host_copy(prof_direction(kind), symbol, src);"),
    "hipMemcpyFromSymbol": copy("0", "sizeBytes", KIND, True, "prof_on_host_copy(prof_direction(kind), dst, symbol);"),
    "hipMemcpyFromSymbol_spt": copy(PT, "sizeBytes", KIND, True, "prof_on_host_copy(prof_direction(kind), dst, symbol);"),
    "hipMemcpyFromSymbolAsync": copy("stream", "sizeBytes", KIND, False, "prof_on_host_copy(prof_direction(kind), dst, symbol);"),
    "hipMemcpy2D_spt": copy(PT, "width * height", KIND, True, HOST),
    "hipMemcpy2DToArray": copy("0", "width * height", KIND, True, HOST),
    "hipMemcpy2DToArray_spt": copy(PT, "width * height", KIND, True, HOST),
    "hipMemcpy2DToArrayAsync": copy("stream", "width * height", KIND, False, HOST),
    "hipMemcpy2DFromArray": copy("0", "width * height", KIND, True, HOST),
    "hipMemcpy2DFromArray_spt": copy(PT, "width * height", KIND, True, HOST),
    "hipMemcpy2DFromArrayAsync": copy("stream", "width * height", KIND, False, HOST),
    "hipMemcpyToArray": copy("0", "count", KIND, True, HOST),
    "hipMemcpyFromArray": copy("0", "count", KIND, True, "prof_on_host_copy(prof_direction(kind), dst, srcArray);"),
    "hipMemcpyAtoH": copy("0", "count", "prof::CopyDirection::kDeviceToHost", True, "prof_on_host_copy(prof::CopyDirection::kDeviceToHost, dst, srcArray);"),
    "hipMemcpyHtoA": copy("0", "count", "prof::CopyDirection::kHostToDevice", True, "prof_on_host_copy(prof::CopyDirection::kHostToDevice, dstArray, srcHost);"),
    "hipMemcpy3D": copy("0", "prof_hip_bytes(p)", "prof_hip_direction(p)", True),
    "hipMemcpy3D_spt": copy(PT, "prof_hip_bytes(p)", "prof_hip_direction(p)", True),
    "hipMemcpy3DAsync": copy("stream", "prof_hip_bytes(p)", "prof_hip_direction(p)", False),
    "hipDrvMemcpy3D": copy("0", "prof_hip_bytes(pCopy)", "prof_hip_direction(pCopy)", True),
    "hipDrvMemcpy3DAsync": copy("stream", "prof_hip_bytes(pCopy)", "prof_hip_direction(pCopy)", False),
    "hipMemcpyParam2D": copy("0", "prof_hip_bytes(pCopy)", "prof_hip_direction(pCopy)", True),
    "hipMemcpyParam2DAsync": copy("stream", "prof_hip_bytes(pCopy)", "prof_hip_direction(pCopy)", False),
    "hipDrvMemcpy2DUnaligned": copy("0", "prof_hip_bytes(pCopy)", "prof_hip_direction(pCopy)", True),
    # memsets
    "hipMemset_spt": mset(PT, "sizeBytes", True),
    "hipMemsetD8": mset("0", "count", True),
    "hipMemsetD8Async": mset("stream", "count", False),
    "hipMemsetD16": mset("0", "count * 2", True),
    "hipMemsetD16Async": mset("stream", "count * 2", False),
    "hipMemsetD32": mset("0", "count * 4", True),
    "hipMemsetD32Async": mset("stream", "count * 4", False),
    "hipMemset2D": mset("0", "width * height", True),
    "hipMemset2D_spt": mset(PT, "width * height", True),
    "hipMemset2DAsync": mset("stream", "width * height", False),
    "hipMemset3D": mset("0", "prof_hip_bytes(extent)", True),
    "hipMemset3D_spt": mset(PT, "prof_hip_bytes(extent)", True),
    "hipMemset3DAsync": mset("stream", "prof_hip_bytes(extent)", False),
    # allocations (bytes = size, aux = the pointer or handle) and releases (aux = the pointer)
    "hipExtMallocWithFlags": alloc("sizeBytes", "prof_out(ptr, ret)"),
    "hipMallocHost": alloc("size", "prof_out(ptr, ret)"),
    "hipMemAllocHost": alloc("size", "prof_out(ptr, ret)"),
    "hipHostAlloc": alloc("size", "prof_out(ptr, ret)"),
    "hipMallocPitch": alloc("prof_out(pitch, ret) * height", "prof_out(ptr, ret)"),
    "hipMemAllocPitch": alloc("prof_out(pitch, ret) * height", "prof_out(dptr, ret)"),
    "hipMalloc3D": alloc("prof_hip_pitched_bytes(pitchedDevPtr, extent, ret)", "prof_hip_pitched_ptr(pitchedDevPtr, ret)"),
    "hipMallocAsync": alloc("size", "prof_out(dev_ptr, ret)"),
    "hipMallocFromPoolAsync": alloc("size", "prof_out(dev_ptr, ret)"),
    "hipMallocArray": alloc("prof_hip_array_bytes(desc, width, height, 0)", "prof_out(array, ret)"),
    "hipMalloc3DArray": alloc("prof_hip_array_bytes(desc, extent.width, extent.height, extent.depth)",
                              "prof_out(array, ret)"),
    "hipArrayCreate": alloc("prof_hip_array_bytes(pAllocateArray)", "prof_out(pHandle, ret)"),
    "hipArray3DCreate": alloc("prof_hip_array_bytes(pAllocateArray)", "prof_out(array, ret)"),
    "hipMemCreate": alloc("size", "prof_out(handle, ret)"),
    "hipFreeHost": alloc("0", "ptr"),
    "hipFreeAsync": alloc("0", "dev_ptr"),
    "hipFreeArray": alloc("0", "array"),
    "hipArrayDestroy": alloc("0", "array"),
    "hipMemRelease": alloc("0", "handle"),
    # handles worth keeping
    "hipExtStreamCreateWithCUMask": ("kNone", None, "0", "prof_out(stream, ret)", ""),
    "hipHostRegister": ("kNone", None, "sizeBytes", "hostPtr", ""),
    "hipHostUnregister": ("kNone", None, "0", "hostPtr", ""),
    "hipMemPrefetchAsync": ("kNone", None, "count", "device", ""),
    "hipDeviceGetAttribute": ("kNone", None, "0", "attr", ""),
    "hipModuleLoadDataEx": ("kNone", None, "0", "prof_out(module, ret)", ""),
    "hipGraphInstantiateWithFlags": ("kNone", None, "0", "prof_out(pGraphExec, ret)",
                                     "prof_on_graph_instantiate(pGraphExec, ret);"),
}

# The hook's own names inside the row's expressions: a parameter may not take them.
RENAME = {"ret": "ret_", "ctx": "ctx_"}


def clang_declarations(exports):
    src = "".join("#include <%s>\n" % h for h in HEADERS)
    with tempfile.NamedTemporaryFile("w", suffix=".cpp") as f:
        f.write(src)
        f.flush()
        out = subprocess.run(["clang++", "-D__HIP_PLATFORM_AMD__", "-Xclang", "-ast-dump=json", "-fsyntax-only",
                              f.name], check=True, capture_output=True, text=True).stdout
    found = {}

    def walk(node):
        for ch in node.get("inner", []):
            kind = ch.get("kind")
            if kind in ("NamespaceDecl", "LinkageSpecDecl"):
                walk(ch)
            elif kind == "FunctionDecl":
                symbol = ch.get("mangledName", ch.get("name"))
                if symbol in exports and symbol not in found:
                    ret = ch["type"]["qualType"].split("(")[0].strip()
                    params = [(p["type"]["qualType"], p.get("name", "p%d" % i))
                              for i, p in enumerate(ch.get("inner", [])) if p["kind"] == "ParmVarDecl"]
                    found[symbol] = (ch["name"], ret, params)
    walk(json.loads(out))
    return found


def tidy(t):
    t = re.sub(r"\s+([*&])", r"\1", t.strip())
    return t


def export_list(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True, capture_output=True, text=True).stdout
    exports = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "TW" and "@@" in parts[2]:
            name, version = parts[2].split("@@")
            exports[name] = version
    return exports


def is_table_symbol(symbol):
    return symbol.startswith(("hip", "__hip")) or re.match(r"_Z(N8hip_impl)?\d+hip", symbol) is not None


def row_text(name, symbol, ret, params, cols):
    activity, stream, bytes_, aux, post = cols
    p = "(" + (", ".join("%s %s" % (t, RENAME.get(n, n)) for t, n in params) if params else "void") + ")"
    a = "(" + ", ".join(RENAME.get(n, n) for _, n in params) + ")"
    if symbol != name:
        head = "PROF_HIP_API_CXX(%s, \"%s\", %s, %s" % (name, symbol, QUALIFIED.get(symbol, "::" + name), ret)
    else:
        head = "PROF_HIP_API(%s, %s" % (name, ret)
    parts = [head, p, a, activity, stream, bytes_, aux, post]
    one = ", ".join(parts) + ")"
    if len(one) <= 118:
        return one + "\n"
    lines, cur = [], parts[0]
    for part in parts[1:]:
        if len(cur) + 2 + len(part) > 118:
            lines.append(cur + ",")
            cur = " " * 13 + part
        else:
            cur += ", " + part
    lines.append(cur + ")")
    return "\n".join(lines) + "\n"


def columns(name, params):
    first_stream = next((RENAME.get(n, n) for t, n in params if t == "hipStream_t"), None)
    default_stream = first_stream or "0"
    if name.endswith("_spt"):
        default_stream = "prof_spt_stream(%s)" % first_stream if first_stream else PT
    activity, stream, bytes_, aux, post = ROWS.get(name, ("kNone", None, "0", "0", ""))
    if stream is None:
        stream = default_stream
    return activity, stream, bytes_, aux, post


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", default="/usr/lib/x86_64-linux-gnu/libamdhip64.so.5")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    exports = export_list(args.lib)
    table_text = open(DEF).read()
    have = set(re.findall(r"^PROF_HIP_API(?:_CXX)?\((\w+),", table_text, re.M))
    declared = clang_declarations(exports)
    rows = []
    for symbol in sorted(s for s in exports if is_table_symbol(s)):
        if symbol in have:
            continue
        if symbol in declared:
            name, ret, params = declared[symbol]
            params = [(tidy(t), n) for t, n in params]
            ret = tidy(ret)
        elif symbol in UNDECLARED:
            ret, params = UNDECLARED[symbol]
            name = re.sub(r"^_Z(N8hip_impl)?\d+", "", symbol)
            name = re.match(r"[A-Za-z_]\w*?(?=E|$)", name).group(0) if symbol.startswith("_Z") else symbol
            if symbol.startswith("_ZN8hip_impl"):
                name = "hipLaunchKernelGGLImpl"
        else:
            sys.exit("gen-hip-table: %s is exported but neither declared nor listed in UNDECLARED" % symbol)
        if name in have:
            continue
        rows.append((name, row_text(name, symbol, ret, params, columns(name, params))))
    rows.sort()
    marker = "// ---- end of rows"
    body, trailer = table_text.split(marker, 1) if marker in table_text else (table_text, None)
    if trailer is None:
        sys.exit("gen-hip-table: %s lacks its '%s' line" % (DEF, marker))
    trailer = marker + trailer
    new_table = body
    if rows:
        if "---- i) generated" not in body:
            new_table += ("// ---- i) generated by scripts/gen-hip-table.py from Debian's HIP 5.2 headers and the library's\n"
                          "// exports (appended in name order; hand edits to the columns are kept on regeneration) ----\n")
        new_table += "".join(text for _, text in rows)
    new_table += trailer
    exports_text = ("// Every function Debian's libamdhip64.so.5 (HIP 5.2) exports, with its symbol version; written\n"
                    "// by scripts/gen-hip-table.py from nm -D. PROF_HIP_EXPORT(symbol, version, in_table): in_table 0\n"
                    "// marks the few exports that are not HIP API (compiler and debugger helpers).\n" +
                    "".join("PROF_HIP_EXPORT(%s, \"%s\", %d)\n" % (s, exports[s], is_table_symbol(s))
                            for s in sorted(exports)))
    versions = sorted(set(exports.values()), key=lambda v: [int(x) for x in v[4:].split(".")])
    map_text = ("/* Export list of the simulated libamdhip64: every function Debian's libamdhip64 5.2 exports, at the\n"
                "   same version node (nm -D), written by scripts/gen-hip-table.py (runtimes/hip/hip_exports.def\n"
                "   holds the same list). Each node inherits the one before, as there. Functions the model\n"
                "   does not implement are sim/hip_unsupported.cpp's hipErrorNotSupported stubs. */\n")
    for i, v in enumerate(versions):
        map_text += "%s {\n  global:\n" % v
        map_text += "".join("    %s;\n" % s for s in sorted(s for s in exports if exports[s] == v))
        if i == 0:
            map_text += "  local:\n    *;\n"
        map_text += "}%s;\n\n" % ((" " + versions[i - 1]) if i else "")
    changes = [(DEF, table_text, new_table), (EXPORTS, open(EXPORTS).read() if os.path.exists(EXPORTS) else "",
                                               exports_text), (MAP, open(MAP).read(), map_text.rstrip() + "\n")]
    if args.check:
        stale = [p for p, old, new in changes if old != new]
        for name, _ in rows:
            print("gen-hip-table: %s is exported by %s but not in the table" % (name, args.lib))
        for p in stale:
            print("gen-hip-table: %s is out of date" % os.path.relpath(p, ROOT))
        return 1 if stale else 0
    for p, old, new in changes:
        if old != new:
            open(p, "w").write(new)
    print("gen-hip-table: %d rows appended; %d exports" % (len(rows), len(exports)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
