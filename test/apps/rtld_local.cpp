// Loads a library that links the HIP runtime with dlopen(RTLD_NOW | RTLD_LOCAL), as Python does
// for extension modules, and calls it: the program itself never names a HIP function.
//     rtld_local <path of librtld_local_lib.so>
#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: rtld_local LIBRARY\n");
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 3;
  }
  auto run = reinterpret_cast<long (*)()>(dlsym(library, "rtld_local_run"));
  if (run == nullptr) return 4;
  const long calls = run();
  std::printf("PID %ld\n", static_cast<long>(getpid()));
  std::printf("EXPECT api_calls=%ld kernels=1 copies=2\n", calls);
  std::printf("END\n");
  return 0;
}
