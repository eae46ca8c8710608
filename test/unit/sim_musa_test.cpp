// The simulated libmusart (sim/musa_face.cpp): CUDA's semantics on the shared device model. The
// model itself (timing, ordering, capture) is tested through HIP's face in sim_*_test.cpp; these
// hold what the MUSA face adds: handle translation, the legacy default stream, CUDA's last-error
// rule, error names, and the compiler's launch path.
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "runtimes/musa/musa_runtime_decls.hpp"

namespace {

musaStream_t make_stream(unsigned flags) {
  musaStream_t s = nullptr;
  REQUIRE(musaStreamCreateWithFlags(&s, flags) == musaSuccess);
  return s;
}

void clear_last_error() { (void)musaGetLastError(); }

}  // namespace

TEST_CASE("musa: a failed call sets the last error until musaGetLastError reads it",
          "[sim][musa]") {
  clear_last_error();
  auto* bogus = reinterpret_cast<musaStream_t>(0x1234);
  CHECK(musaStreamSynchronize(bogus) == musaErrorInvalidResourceHandle);
  // Successful calls in between do not clear it (CUDA, unlike HIP 5.2's every-call rule).
  int count = 0;
  CHECK(musaGetDeviceCount(&count) == musaSuccess);
  CHECK(musaPeekAtLastError() == musaErrorInvalidResourceHandle);
  CHECK(musaPeekAtLastError() == musaErrorInvalidResourceHandle);
  CHECK(musaGetLastError() == musaErrorInvalidResourceHandle);
  CHECK(musaGetLastError() == musaSuccess);
}

TEST_CASE("musa: a query's 'not ready' is an answer, not a last error", "[sim][musa]") {
  clear_last_error();
  musaStream_t s = make_stream(musaStreamNonBlocking);
  std::vector<char> host(64 << 20);
  void* dev = nullptr;
  REQUIRE(musaMalloc(&dev, host.size()) == musaSuccess);
  REQUIRE(musaMemcpyAsync(dev, host.data(), host.size(), musaMemcpyHostToDevice, s) == musaSuccess);
  const musaError_t q = musaStreamQuery(s);
  CHECK((q == musaErrorNotReady || q == musaSuccess));
  CHECK(musaPeekAtLastError() == musaSuccess);
  REQUIRE(musaStreamSynchronize(s) == musaSuccess);
  CHECK(musaStreamQuery(s) == musaSuccess);
  CHECK(musaFree(dev) == musaSuccess);
  CHECK(musaStreamDestroy(s) == musaSuccess);
}

TEST_CASE("musa: bad handles and devices fail with CUDA's codes", "[sim][musa]") {
  clear_last_error();
  CHECK(musaSetDevice(99) == musaErrorInvalidDevice);
  CHECK(musaGetLastError() == musaErrorInvalidDevice);
  CHECK(musaEventRecord(reinterpret_cast<musaEvent_t>(0x99), nullptr) ==
        musaErrorInvalidResourceHandle);
  CHECK(musaStreamDestroy(musaStreamLegacy) == musaErrorInvalidResourceHandle);
  CHECK(musaMalloc(nullptr, 16) == musaErrorInvalidValue);
  CHECK(musaHostAlloc(nullptr, 16, 0x100) == musaErrorInvalidValue);
  int value = 0;
  CHECK(musaDeviceGetAttribute(&value, static_cast<musaDeviceAttr>(12345), 0) ==
        musaErrorInvalidValue);
  clear_last_error();
}

TEST_CASE("musa: error names and strings are MUSA's", "[sim][musa]") {
  CHECK(std::strcmp(musaGetErrorName(musaSuccess), "musaSuccess") == 0);
  CHECK(std::strcmp(musaGetErrorName(musaErrorInvalidResourceHandle),
                    "musaErrorInvalidResourceHandle") == 0);
  CHECK(std::strcmp(musaGetErrorString(musaErrorMemoryAllocation), "out of memory") == 0);
  CHECK(std::strcmp(musaGetErrorName(static_cast<musaError_t>(4242)), "unrecognized error code") ==
        0);
}

TEST_CASE("musa: the legacy default stream waits for blocking streams, not for non-blocking ones",
          "[sim][musa]") {
  musaStream_t blocking = make_stream(musaStreamDefault);
  musaStream_t non_blocking = make_stream(musaStreamNonBlocking);
  // Pinned: an async copy of pageable memory returns only once it is done (sim/copy.cpp).
  struct Pinned {
    char* bytes = nullptr;
    Pinned() { REQUIRE(musaMallocHost(reinterpret_cast<void**>(&bytes), size()) == musaSuccess); }
    ~Pinned() { musaFreeHost(bytes); }
    char* data() const { return bytes; }
    size_t size() const { return 8 << 20; }
  } host;
  void* dev = nullptr;
  REQUIRE(musaMalloc(&dev, host.size()) == musaSuccess);
  musaEvent_t after_copy = nullptr, on_legacy = nullptr;
  REQUIRE(musaEventCreate(&after_copy) == musaSuccess);
  REQUIRE(musaEventCreate(&on_legacy) == musaSuccess);
  float ms = -1.0f;

  SECTION("blocking stream: the legacy stream's marker comes after the copy") {
    REQUIRE(musaMemcpyAsync(dev, host.data(), host.size(), musaMemcpyHostToDevice, blocking) ==
            musaSuccess);
    REQUIRE(musaEventRecord(after_copy, blocking) == musaSuccess);
    REQUIRE(musaEventRecord(on_legacy, musaStreamLegacy) == musaSuccess);
    REQUIRE(musaEventSynchronize(on_legacy) == musaSuccess);
    REQUIRE(musaEventElapsedTime(&ms, after_copy, on_legacy) == musaSuccess);
    CHECK(ms >= 0.0f);
  }
  SECTION("non-blocking stream: the legacy stream does not wait for it") {
    // The legacy stream's marker completes when recorded, before the copy ends, unless this
    // thread was held off the CPU for longer than the copy between the two calls (a loaded
    // machine): one attempt of three must show it. A legacy stream that waited never would.
    bool before_copy_end = false;
    for (int attempt = 0; attempt < 3 && !before_copy_end; ++attempt) {
      REQUIRE(musaMemcpyAsync(dev, host.data(), host.size(), musaMemcpyHostToDevice,
                              non_blocking) == musaSuccess);
      REQUIRE(musaEventRecord(after_copy, non_blocking) == musaSuccess);
      REQUIRE(musaEventRecord(on_legacy, nullptr) == musaSuccess);
      REQUIRE(musaStreamSynchronize(non_blocking) == musaSuccess);
      REQUIRE(musaEventSynchronize(on_legacy) == musaSuccess);
      REQUIRE(musaEventElapsedTime(&ms, after_copy, on_legacy) == musaSuccess);
      before_copy_end = ms < 0.0f;
    }
    CHECK(before_copy_end);
  }
  CHECK(musaEventDestroy(after_copy) == musaSuccess);
  CHECK(musaEventDestroy(on_legacy) == musaSuccess);
  CHECK(musaFree(dev) == musaSuccess);
  CHECK(musaStreamDestroy(blocking) == musaSuccess);
  CHECK(musaStreamDestroy(non_blocking) == musaSuccess);
}

TEST_CASE("musa: async work runs in stream order, and bytes arrive", "[sim][musa]") {
  musaStream_t s = make_stream(musaStreamNonBlocking);
  const size_t bytes = 1 << 20;
  std::vector<unsigned char> in(bytes), out(bytes, 0);
  for (size_t i = 0; i < bytes; ++i) in[i] = static_cast<unsigned char>(i * 7);
  void *a = nullptr, *b = nullptr;
  REQUIRE(musaMallocAsync(&a, bytes, s) == musaSuccess);
  REQUIRE(musaMalloc(&b, bytes) == musaSuccess);
  REQUIRE(musaMemcpyAsync(a, in.data(), bytes, musaMemcpyHostToDevice, s) == musaSuccess);
  REQUIRE(musaMemcpyAsync(b, a, bytes, musaMemcpyDeviceToDevice, s) == musaSuccess);
  REQUIRE(musaMemsetAsync(a, 0, bytes, s) == musaSuccess);
  REQUIRE(musaMemcpyAsync(out.data(), b, bytes, musaMemcpyDeviceToHost, s) == musaSuccess);
  REQUIRE(musaStreamSynchronize(s) == musaSuccess);
  CHECK(out == in);
  size_t free_bytes = 0, total_bytes = 0;
  REQUIRE(musaMemGetInfo(&free_bytes, &total_bytes) == musaSuccess);
  CHECK(free_bytes <= total_bytes - 2 * bytes);
  CHECK(musaFreeAsync(a, s) == musaSuccess);
  CHECK(musaFree(b) == musaSuccess);
  size_t free_after = 0;
  REQUIRE(musaMemGetInfo(&free_after, &total_bytes) == musaSuccess);
  CHECK(free_after == free_bytes + 2 * bytes);
  CHECK(musaStreamDestroy(s) == musaSuccess);
}

namespace {
void registered_kernel_stub() {}
}  // namespace

TEST_CASE("musa: the compiler's launch path: register, push, pop, launch", "[sim][musa]") {
  clear_last_error();
  unsigned char image[16] = {};
  void** handle = __musaRegisterFatBinary(image);
  REQUIRE(handle != nullptr);
  char device_name[] = "_Z6kernelv";
  __musaRegisterFunction(handle, reinterpret_cast<const char*>(&registered_kernel_stub),
                         device_name, device_name, -1, nullptr, nullptr, nullptr, nullptr, nullptr);
  musaStream_t s = make_stream(musaStreamNonBlocking);
  CHECK(__musaPushCallConfiguration(dim3{4, 1, 1}, dim3{64, 1, 1}, 0, s) == 0);
  dim3 grid{}, block{};
  size_t shared = 1;
  musaStream_t popped = nullptr;
  REQUIRE(__musaPopCallConfiguration(&grid, &block, &shared, &popped) == musaSuccess);
  CHECK(grid.x == 4);
  CHECK(block.x == 64);
  CHECK(shared == 0);
  CHECK(popped == s);
  CHECK(musaLaunchKernel(reinterpret_cast<const void*>(&registered_kernel_stub), grid, block,
                         nullptr, shared, popped) == musaSuccess);
  // An unmatched pop is CUDA's "not configured".
  CHECK(__musaPopCallConfiguration(&grid, &block, &shared, &popped) ==
        musaErrorMissingConfiguration);
  CHECK(musaLaunchKernel(nullptr, grid, block, nullptr, 0, s) == musaErrorInvalidDeviceFunction);
  CHECK(musaLaunchKernel(reinterpret_cast<const void*>(&registered_kernel_stub), dim3{0, 1, 1},
                         block, nullptr, 0, s) == musaErrorInvalidConfiguration);
  CHECK(musaStreamSynchronize(s) == musaSuccess);
  CHECK(musaStreamDestroy(s) == musaSuccess);
  __musaUnregisterFatBinary(handle);
  clear_last_error();
}

TEST_CASE("musa: capture into a graph, instantiate and launch", "[sim][musa]") {
  musaStream_t s = make_stream(musaStreamNonBlocking);
  void* dev = nullptr;
  REQUIRE(musaMalloc(&dev, 4096) == musaSuccess);
  musaStreamCaptureStatus status = musaStreamCaptureStatusActive;
  REQUIRE(musaStreamIsCapturing(s, &status) == musaSuccess);
  CHECK(status == musaStreamCaptureStatusNone);
  REQUIRE(musaStreamBeginCapture(s, musaStreamCaptureModeGlobal) == musaSuccess);
  REQUIRE(musaStreamIsCapturing(s, &status) == musaSuccess);
  CHECK(status == musaStreamCaptureStatusActive);
  REQUIRE(musaMemsetAsync(dev, 1, 4096, s) == musaSuccess);
  // A synchronize cannot be captured: it fails and spoils the capture, as in CUDA.
  SECTION("a clean capture") {
    musaGraph_t graph = nullptr;
    REQUIRE(musaStreamEndCapture(s, &graph) == musaSuccess);
    musaGraphExec_t exec = nullptr;
    CHECK(musaGraphInstantiate(&exec, graph, 1ull << 40) == musaErrorInvalidValue);
    REQUIRE(musaGraphInstantiate(&exec, graph, 0) == musaSuccess);
    REQUIRE(musaGraphLaunch(exec, s) == musaSuccess);
    REQUIRE(musaStreamSynchronize(s) == musaSuccess);
    CHECK(musaGraphExecDestroy(exec) == musaSuccess);
    CHECK(musaGraphDestroy(graph) == musaSuccess);
  }
  SECTION("a capture spoiled by a synchronize") {
    CHECK(musaStreamSynchronize(s) == musaErrorStreamCaptureUnsupported);
    musaGraph_t graph = nullptr;
    CHECK(musaStreamEndCapture(s, &graph) == musaErrorStreamCaptureInvalidated);
  }
  clear_last_error();
  CHECK(musaFree(dev) == musaSuccess);
  CHECK(musaStreamDestroy(s) == musaSuccess);
}

TEST_CASE("musa: device properties and attributes agree", "[sim][musa]") {
  musaDeviceProp prop;
  REQUIRE(musaGetDeviceProperties(&prop, 0) == musaSuccess);
  CHECK(std::strstr(prop.name, "MUSA") != nullptr);
  int value = 0;
  REQUIRE(musaDeviceGetAttribute(&value, musaDevAttrMultiProcessorCount, 0) == musaSuccess);
  CHECK(value == prop.multiProcessorCount);
  REQUIRE(musaDeviceGetAttribute(&value, musaDevAttrWarpSize, 0) == musaSuccess);
  CHECK(value == 32);
  CHECK(musaGetDeviceProperties(&prop, 77) == musaErrorInvalidDevice);
  clear_last_error();
}

TEST_CASE("musa: 2D and peer copies move the bytes, blocking and on a stream", "[sim][musa]") {
  clear_last_error();
  int devices = 0;
  REQUIRE(musaGetDeviceCount(&devices) == musaSuccess);
  REQUIRE(devices >= 2);
  musaStream_t s = make_stream(musaStreamNonBlocking);
  // 2D: 8 rows of 24 bytes out of a 32-byte pitch into a 40-byte pitch and back.
  const size_t width = 24, height = 8, host_pitch = 32, dev_pitch = 40;
  std::vector<unsigned char> in(host_pitch * height), out(host_pitch * height, 0);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>(i + 1);
  void* dev = nullptr;
  REQUIRE(musaMalloc(&dev, dev_pitch * height) == musaSuccess);
  REQUIRE(musaMemcpy2D(dev, dev_pitch, in.data(), host_pitch, width, height,
                       musaMemcpyHostToDevice) == musaSuccess);
  REQUIRE(musaMemcpy2DAsync(out.data(), host_pitch, dev, dev_pitch, width, height,
                            musaMemcpyDeviceToHost, s) == musaSuccess);
  REQUIRE(musaStreamSynchronize(s) == musaSuccess);
  for (size_t row = 0; row < height; ++row) {
    CHECK(std::memcmp(&out[row * host_pitch], &in[row * host_pitch], width) == 0);
    CHECK(out[row * host_pitch + width] == 0);  // the pitch's padding is not copied
  }
  CHECK(musaMemcpy2D(dev, width - 1, in.data(), host_pitch, width, height,
                     musaMemcpyHostToDevice) == musaErrorInvalidPitchValue);
  clear_last_error();

  // Peer: device 0 -> device 1, blocking, then back on the stream.
  const size_t bytes = 4096;
  std::vector<unsigned char> src(bytes), back(bytes, 0);
  for (size_t i = 0; i < bytes; ++i) src[i] = static_cast<unsigned char>(i * 3);
  void *on0 = nullptr, *on1 = nullptr;
  REQUIRE(musaSetDevice(0) == musaSuccess);
  REQUIRE(musaMalloc(&on0, bytes) == musaSuccess);
  REQUIRE(musaSetDevice(1) == musaSuccess);
  REQUIRE(musaMalloc(&on1, bytes) == musaSuccess);
  REQUIRE(musaSetDevice(0) == musaSuccess);
  REQUIRE(musaMemcpy(on0, src.data(), bytes, musaMemcpyHostToDevice) == musaSuccess);
  REQUIRE(musaMemcpyPeer(on1, 1, on0, 0, bytes) == musaSuccess);
  REQUIRE(musaMemset(on0, 0, bytes) == musaSuccess);
  REQUIRE(musaMemcpyPeerAsync(on0, 0, on1, 1, bytes, s) == musaSuccess);
  REQUIRE(musaMemcpyAsync(back.data(), on0, bytes, musaMemcpyDeviceToHost, s) == musaSuccess);
  REQUIRE(musaStreamSynchronize(s) == musaSuccess);
  CHECK(back == src);
  CHECK(musaMemcpyPeer(on1, 7, on0, 0, bytes) == musaErrorInvalidDevice);
  CHECK(musaGetLastError() == musaErrorInvalidDevice);
  CHECK(musaFree(on0) == musaSuccess);
  CHECK(musaFree(on1) == musaSuccess);
  CHECK(musaFree(dev) == musaSuccess);
  CHECK(musaStreamDestroy(s) == musaSuccess);
}

TEST_CASE("musa: a stream waits for an event recorded on another stream", "[sim][musa]") {
  musaStream_t producer = make_stream(musaStreamNonBlocking);
  musaStream_t consumer = make_stream(musaStreamNonBlocking);
  std::vector<char> host(8 << 20);
  void* dev = nullptr;
  REQUIRE(musaMalloc(&dev, host.size()) == musaSuccess);
  musaEvent_t copied = nullptr, after_wait = nullptr;
  REQUIRE(musaEventCreate(&copied) == musaSuccess);
  REQUIRE(musaEventCreate(&after_wait) == musaSuccess);
  REQUIRE(musaMemcpyAsync(dev, host.data(), host.size(), musaMemcpyHostToDevice, producer) ==
          musaSuccess);
  REQUIRE(musaEventRecord(copied, producer) == musaSuccess);
  REQUIRE(musaStreamWaitEvent(consumer, copied, 0) == musaSuccess);
  REQUIRE(musaEventRecord(after_wait, consumer) == musaSuccess);
  REQUIRE(musaEventSynchronize(after_wait) == musaSuccess);
  // The consumer's marker cannot be before the copy it waited for; it is complete once its own is.
  CHECK(musaEventQuery(copied) == musaSuccess);
  float ms = -1.0f;
  REQUIRE(musaEventElapsedTime(&ms, copied, after_wait) == musaSuccess);
  CHECK(ms >= 0.0f);
  CHECK(musaStreamWaitEvent(consumer, copied, 0x10) == musaErrorInvalidValue);
  CHECK(musaGetLastError() == musaErrorInvalidValue);
  CHECK(musaEventDestroy(copied) == musaSuccess);
  CHECK(musaEventDestroy(after_wait) == musaSuccess);
  CHECK(musaFree(dev) == musaSuccess);
  CHECK(musaStreamDestroy(producer) == musaSuccess);
  CHECK(musaStreamDestroy(consumer) == musaSuccess);
}

TEST_CASE("musa: events without timing, and never recorded, cannot be timed", "[sim][musa]") {
  clear_last_error();
  musaEvent_t untimed = nullptr, timed = nullptr, never = nullptr;
  REQUIRE(musaEventCreateWithFlags(&untimed, musaEventDisableTiming) == musaSuccess);
  REQUIRE(musaEventCreate(&timed) == musaSuccess);
  REQUIRE(musaEventCreate(&never) == musaSuccess);
  REQUIRE(musaEventRecord(untimed, nullptr) == musaSuccess);
  REQUIRE(musaEventRecord(timed, nullptr) == musaSuccess);
  REQUIRE(musaEventSynchronize(timed) == musaSuccess);
  float ms = 0.0f;
  CHECK(musaEventElapsedTime(&ms, untimed, timed) == musaErrorInvalidResourceHandle);
  CHECK(musaEventElapsedTime(&ms, timed, never) == musaErrorInvalidResourceHandle);
  CHECK(musaEventQuery(never) == musaSuccess);  // a never-recorded event is complete
  CHECK(musaGetLastError() == musaErrorInvalidResourceHandle);
  CHECK(musaEventDestroy(untimed) == musaSuccess);
  CHECK(musaEventDestroy(timed) == musaSuccess);
  CHECK(musaEventDestroy(never) == musaSuccess);
}

TEST_CASE("musa: the per-thread stream, priorities and cooperative launches", "[sim][musa]") {
  clear_last_error();
  musaStream_t prioritised = nullptr;
  REQUIRE(musaStreamCreateWithPriority(&prioritised, musaStreamNonBlocking, -1) == musaSuccess);
  CHECK(musaLaunchCooperativeKernel(reinterpret_cast<const void*>(&registered_kernel_stub),
                                    dim3{2, 1, 1}, dim3{32, 1, 1}, nullptr, 0,
                                    prioritised) == musaSuccess);
  CHECK(musaLaunchKernel(reinterpret_cast<const void*>(&registered_kernel_stub), dim3{1, 1, 1},
                         dim3{32, 1, 1}, nullptr, 0, musaStreamPerThread) == musaSuccess);
  CHECK(musaStreamSynchronize(musaStreamPerThread) == musaSuccess);
  CHECK(musaStreamQuery(musaStreamPerThread) == musaSuccess);
  CHECK(musaStreamSynchronize(prioritised) == musaSuccess);
  CHECK(musaStreamSynchronize(musaStreamLegacy) == musaSuccess);
  CHECK(musaPeekAtLastError() == musaSuccess);
  // A destroyed stream is a bad handle, to every call that takes it.
  REQUIRE(musaStreamDestroy(prioritised) == musaSuccess);
  void* p = nullptr;
  CHECK(musaMallocAsync(&p, 64, prioritised) == musaErrorInvalidResourceHandle);
  CHECK(musaMemsetAsync(p, 0, 64, prioritised) == musaErrorInvalidResourceHandle);
  CHECK(musaLaunchKernel(reinterpret_cast<const void*>(&registered_kernel_stub), dim3{1, 1, 1},
                         dim3{1, 1, 1}, nullptr, 0, prioritised) == musaErrorInvalidResourceHandle);
  CHECK(musaGetLastError() == musaErrorInvalidResourceHandle);
  CHECK(musaGetLastError() == musaSuccess);
}
