// Kernels with names a hostile or unusual program may give them (issue 42, e2e:odd_names): two
// that differ only in bytes that are not UTF-8, one full of terminal controls (ESC, a right-to-
// left override, line and paragraph separators, BEL, a C1 CSI), CJK and combining names, and a
// plain one. Each name is found in a module with hipModuleGetFunction, as a program loading a
// code object does, so the name reaches prof byte for byte. Each kernel is launched a different
// number of times, so a test can tell the rows apart by their counts. Prints only ASCII: `PID`,
// one `NAME <hex of the name> <launches>` line per kernel, `EXPECT ...` and `END`.
#include <unistd.h>

#include "hip_calls.hpp"

namespace {

struct OddKernel {
  const char* name;
  int launches;
};

const OddKernel kKernels[] = {
    {"bad\xff\xfe", 2},
    {"bad\xfe\xff", 3},
    {"evil\x1b[31m\xe2\x80\xaegpj.exe\xe2\x80\xa8\xe2\x80\xa9\x07\xc2\x9b"
     "2J",
     4},
    {"\xe6\xa0\xb8\xe5\x87\xbd\xe6\x95\xb0_\xe8\xae\xa1\xe7\xae\x97", 5},  // 核函数_计算
    {"\xe3\x82\xab\xe3\x83\xbc\xe3\x83\x8d\xe3\x83\xab_k", 6},             // カーネル_k
    {"e\xcc\x81_combining", 7},                                            // é as e + U+0301
    {"plain_kernel", 8},
};

// hipModuleLoadData reads nothing of the image on the simulated device; a real one would need a
// code object holding these symbols.
const char kImage[64] = {};

}  // namespace

int main() {
  std::printf("PID %d\n", static_cast<int>(getpid()));
  hipModule_t module = nullptr;
  PROF_HIP(hipModuleLoadData(&module, kImage));
  long kernels = 0;
  for (const OddKernel& k : kKernels) {
    hipFunction_t function = nullptr;
    PROF_HIP(hipModuleGetFunction(&function, module, k.name));
    for (int i = 0; i < k.launches; ++i) {
      PROF_HIP(hipModuleLaunchKernel(function, 1, 1, 1, 64, 1, 1, 0, nullptr, nullptr, nullptr));
      ++kernels;
    }
    std::printf("NAME ");
    for (const char* p = k.name; *p; ++p) std::printf("%02x", static_cast<unsigned char>(*p));
    std::printf(" %d\n", k.launches);
  }
  PROF_HIP(hipDeviceSynchronize());
  PROF_HIP(hipModuleUnload(module));
  std::printf("EXPECT api_calls=%ld kernels=%ld copies=0\n", samples::g_api_calls, kernels);
  std::printf("END\n");
  return 0;
}
