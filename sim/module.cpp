// Code objects: hipcc's registration entry points (__hipRegisterFatBinary/Function) and the
// module API. Names are interned once at registration and never freed, so ops and the truth
// file can carry plain pointers to them.
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "sim/runtime.hpp"

namespace prof::sim {
namespace {

constexpr unsigned kFatBinaryMagic = 0x48495046;  // "HIPF"

// What hipcc's __hip_fatbin_wrapper points at.
struct FatBinaryWrapper {
  unsigned magic;
  unsigned version;
  const void* binary;
  const void* dummy;
};

// __hipRegisterFatBinary returns the address of `handle_slot`, like hipamd's FatBinaryInfo**.
struct FatBinary {
  void* handle_slot = nullptr;
  bool valid = false;
};

struct Module;
struct Function {
  Module* module;
  std::string name;
};

struct Module {
  std::map<std::string, Function*> functions;
};

struct Registry {
  std::mutex mutex;
  std::unordered_map<uint64_t, const char*> names;  // host address or module function -> name
  std::unordered_set<const Module*> modules;
  std::unordered_set<const Function*> functions;  // of live modules
};

Registry& registry() {
  static auto* r = new Registry;  // never destroyed
  return *r;
}

const char* intern(const char* text) { return strdup(text); }  // never freed, see above

hipError_t new_module(hipModule_t* out) {
  auto* m = new Module;
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mutex);
  r.modules.insert(m);
  *out = reinterpret_cast<hipModule_t>(m);
  return hipSuccess;
}

}  // namespace

const char* function_name(uint64_t function) noexcept {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mutex);
  auto it = r.names.find(function);
  return it == r.names.end() ? nullptr : it->second;
}

bool is_module_function(hipFunction_t f) noexcept {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mutex);
  return r.functions.count(reinterpret_cast<const Function*>(f)) != 0;
}

}  // namespace prof::sim

using namespace prof::sim;

// A wrong magic still gets a handle (hipcc's constructor cannot handle failure) but is remembered
// as invalid; nothing else about the code object is read.
void** __hipRegisterFatBinary(const void* data) {
  auto* fat = new FatBinary;  // lives as long as the program
  const auto* wrapper = static_cast<const FatBinaryWrapper*>(data);
  fat->valid = wrapper != nullptr && wrapper->magic == kFatBinaryMagic;
  fat->handle_slot = fat;
  return &fat->handle_slot;
}

void __hipRegisterFunction(void** modules, const void* hostFunction, char* deviceFunction,
                           const char* deviceName, unsigned int threadLimit, uint3* tid, uint3* bid,
                           dim3* blockDim, dim3* gridDim, int* wSize) {
  (void)modules, (void)deviceFunction, (void)threadLimit, (void)tid, (void)bid, (void)blockDim,
      (void)gridDim, (void)wSize;
  if (hostFunction == nullptr || deviceName == nullptr) return;
  const char* name = intern(deviceName);
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mutex);
  r.names[reinterpret_cast<uint64_t>(hostFunction)] = name;
}

// Registered names stay: a kernel still queued may be reported after its binary is unregistered.
void __hipUnregisterFatBinary(void** modules) { (void)modules; }

hipError_t hipModuleLoad(hipModule_t* module, const char* fname) {
  if (module == nullptr || fname == nullptr) return finish(hipErrorInvalidValue);
  FILE* file = std::fopen(fname, "rb");
  if (file == nullptr) return finish(hipErrorFileNotFound);
  std::fclose(file);
  return finish(new_module(module));
}

hipError_t prof::sim::load_module_image(hipModule_t* module, const void* image) noexcept {
  if (module == nullptr || image == nullptr) return hipErrorInvalidValue;
  return new_module(module);
}

hipError_t hipModuleLoadData(hipModule_t* module, const void* image) {
  return finish(load_module_image(module, image));
}

hipError_t hipModuleGetFunction(hipFunction_t* function, hipModule_t module, const char* kname) {
  if (function == nullptr || kname == nullptr) return finish(hipErrorInvalidValue);
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mutex);
  auto* m = reinterpret_cast<Module*>(module);
  if (module == nullptr || r.modules.count(m) == 0) return finish(hipErrorInvalidHandle);
  Function*& f = m->functions[kname];
  if (f == nullptr) {
    f = new Function{m, kname};
    r.functions.insert(f);
    r.names[reinterpret_cast<uint64_t>(f)] = intern(kname);
  }
  *function = reinterpret_cast<hipFunction_t>(f);
  return finish(hipSuccess);
}

// Function objects and names are kept (queued launches may still refer to them); the handles
// stop being launchable.
hipError_t hipModuleUnload(hipModule_t module) {
  Registry& r = registry();
  std::lock_guard<std::mutex> guard(r.mutex);
  auto* m = reinterpret_cast<Module*>(module);
  if (module == nullptr || r.modules.erase(m) == 0) return finish(hipErrorInvalidHandle);
  for (auto& [name, f] : m->functions) r.functions.erase(f);
  return finish(hipSuccess);
}
