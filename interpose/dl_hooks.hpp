// dlsym and dlvsym, hooked: a program that reaches a runtime through dlopen + dlsym(handle,
// "hipMalloc") (Triton's driver, ctypes, many Python frameworks) gets prof's hook, as a linked call
// does, for every runtime in the tables. prof's own lookups use the real functions (real_dlsym,
// real_dlvsym).
#pragma once

extern "C" {
extern void* prof_real_dlsym_fn;
extern void* prof_real_dlvsym_fn;
void prof_dl_init() noexcept;
}

namespace prof::interpose {

using DlsymFn = void* (*)(void*, const char*);
using DlvsymFn = void* (*)(void*, const char*, const char*);

// glibc's dlsym and dlvsym, found without calling either (an ELF lookup in libc's dynamic symbol
// table: interpose/dl_real.cpp); nullptr only if libc cannot be read.
void* real_dlsym(void* handle, const char* name) noexcept;
void* real_dlvsym(void* handle, const char* name, const char* version) noexcept;

}  // namespace prof::interpose
