// Stream capture (test/e2e/test_capture.py): captures work on two streams into a graph, prints
// the graph as the program sees it (nodes, types, edges, kernel parameters), every return value
// and last error, and the capture state at each step; then launches the graph three times and
// checks the bytes it moved. Run with and without prof, the output must be the same: an event or
// query that prof injected into the capture would add a node or invalidate it. Exits 0.
// Usage: capture
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "hip_calls.hpp"

__attribute__((noinline, used)) void produce(float* out) {
  if (out) *out = 1;
}
__attribute__((noinline, used)) void consume(float* out) {
  if (out) *out = 2;
}

namespace {

int g_step = 0;

void show(const char* what, hipError_t result) {
  std::printf("%3d %-58s -> %d, last error %d\n", ++g_step, what, static_cast<int>(result),
              static_cast<int>(hipGetLastError()));
}

#define SHOW(call)       \
  do {                   \
    show(#call, (call)); \
  } while (0)

void show_capture(const char* name, hipStream_t s) {
  hipStreamCaptureStatus status = hipStreamCaptureStatusNone;
  const hipError_t ret = hipStreamIsCapturing(s, &status);
  std::printf("    %s capturing: ret %d status %d\n", name, static_cast<int>(ret),
              static_cast<int>(status));
}

const void* fn(void (*f)(float*)) { return reinterpret_cast<const void*>(f); }

void show_graph(hipGraph_t graph) {
  size_t count = 0;
  SHOW(hipGraphGetNodes(graph, nullptr, &count));
  std::vector<hipGraphNode_t> nodes(count);
  SHOW(hipGraphGetNodes(graph, nodes.data(), &count));
  std::printf("    graph: %zu nodes\n", count);
  auto index = [&](hipGraphNode_t n) {
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (nodes[i] == n) return static_cast<long>(i);
    }
    return -1L;
  };
  for (size_t i = 0; i < count; ++i) {
    hipGraphNodeType type = hipGraphNodeTypeCount;
    SHOW(hipGraphNodeGetType(nodes[i], &type));
    std::printf("    node %zu type %d", i, static_cast<int>(type));
    if (type == hipGraphNodeTypeKernel) {
      hipKernelNodeParams p{};
      const hipError_t ret = hipGraphKernelNodeGetParams(nodes[i], &p);
      std::printf(" kernel %s grid %u,%u,%u block %u,%u,%u shared %u (ret %d)",
                  p.func == fn(produce)   ? "produce"
                  : p.func == fn(consume) ? "consume"
                                          : "?",
                  p.gridDim.x, p.gridDim.y, p.gridDim.z, p.blockDim.x, p.blockDim.y, p.blockDim.z,
                  p.sharedMemBytes, static_cast<int>(ret));
    }
    std::printf("\n");
  }
  size_t edges = 0;
  SHOW(hipGraphGetEdges(graph, nullptr, nullptr, &edges));
  std::vector<hipGraphNode_t> from(edges), to(edges);
  SHOW(hipGraphGetEdges(graph, from.data(), to.data(), &edges));
  for (size_t i = 0; i < edges; ++i)
    std::printf("    edge %ld -> %ld\n", index(from[i]), index(to[i]));
}

}  // namespace

int main() {
  constexpr size_t kCount = 1 << 16;
  constexpr size_t kBytes = kCount * sizeof(float);
  std::vector<float> host(kCount, 3.0f), back(kCount, 0.0f);
  float* device = nullptr;
  hipStream_t s1 = nullptr, s2 = nullptr, s3 = nullptr;
  hipEvent_t fork = nullptr, join = nullptr;
  SHOW(hipMalloc(reinterpret_cast<void**>(&device), kBytes));
  SHOW(hipStreamCreateWithFlags(&s1, hipStreamNonBlocking));
  SHOW(hipStreamCreateWithFlags(&s2, hipStreamNonBlocking));
  SHOW(hipStreamCreateWithFlags(&s3, hipStreamNonBlocking));
  SHOW(hipEventCreateWithFlags(&fork, hipEventDisableTiming));
  SHOW(hipEventCreateWithFlags(&join, hipEventDisableTiming));

  // A capture begun on another thread: this thread's launch into it is captured with nothing of
  // prof's (prof asks the runtime before timing a launch only while a capture may be active, and
  // learns of this one from the other thread's begin call).
  std::thread([&] { SHOW(hipStreamBeginCapture(s2, hipStreamCaptureModeRelaxed)); }).join();
  show_capture("s2", s2);
  SHOW(hipLaunchKernel(fn(produce), dim3(4), dim3(32), nullptr, 0, s2));
  hipGraph_t other = nullptr;
  SHOW(hipStreamEndCapture(s2, &other));
  size_t other_nodes = 0;
  SHOW(hipGraphGetNodes(other, nullptr, &other_nodes));
  std::printf("    graph captured from another thread's begin: %zu node(s)\n", other_nodes);
  SHOW(hipGraphDestroy(other));

  // A capture spoiled by a synchronize: the same error and state with and without prof.
  SHOW(hipStreamBeginCapture(s1, hipStreamCaptureModeGlobal));
  SHOW(hipLaunchKernel(fn(produce), dim3(8), dim3(64), nullptr, 0, s1));
  SHOW(hipStreamSynchronize(s1));
  show_capture("s1", s1);
  hipGraph_t spoiled = nullptr;
  SHOW(hipStreamEndCapture(s1, &spoiled));
  std::printf("    spoiled graph is %s\n", spoiled == nullptr ? "null" : "not null");

  // The real capture: copy in, produce, fork to s2 (consume), memset on s1, join, consume.
  SHOW(hipStreamBeginCapture(s1, hipStreamCaptureModeGlobal));
  show_capture("s1", s1);
  SHOW(hipMemcpyAsync(device, host.data(), kBytes, hipMemcpyHostToDevice, s1));
  SHOW(hipLaunchKernel(fn(produce), dim3(256), dim3(256), nullptr, 0, s1));
  SHOW(hipEventRecord(fork, s1));
  SHOW(hipStreamWaitEvent(s2, fork, 0));
  show_capture("s2", s2);
  SHOW(hipLaunchKernel(fn(consume), dim3(128, 2), dim3(64, 2), nullptr, 1024, s2));
  SHOW(hipEventRecord(join, s2));
  SHOW(hipMemsetAsync(device, 0, kBytes / 2, s1));
  SHOW(hipStreamWaitEvent(s1, join, 0));
  SHOW(hipLaunchKernel(fn(consume), dim3(512), dim3(128), nullptr, 0, s1));
  SHOW(hipMemcpyAsync(back.data(), device, kBytes, hipMemcpyDeviceToHost, s1));
  hipGraph_t graph = nullptr;
  SHOW(hipStreamEndCapture(s1, &graph));
  show_capture("s1", s1);
  show_capture("s2", s2);
  std::printf("    before launch: back[0] %.1f\n", static_cast<double>(back[0]));
  show_graph(graph);

  hipGraphExec_t exec = nullptr;
  SHOW(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
  for (int i = 0; i < 3; ++i) SHOW(hipGraphLaunch(exec, s3));
  SHOW(hipStreamSynchronize(s3));
  std::printf("    after launch: back[0] %.1f back[last] %.1f\n", static_cast<double>(back[0]),
              static_cast<double>(back[kCount - 1]));

  SHOW(hipGraphExecDestroy(exec));
  SHOW(hipGraphDestroy(graph));
  SHOW(hipEventDestroy(fork));
  SHOW(hipEventDestroy(join));
  SHOW(hipStreamDestroy(s1));
  SHOW(hipStreamDestroy(s2));
  SHOW(hipStreamDestroy(s3));
  SHOW(hipFree(device));
  std::printf("END\n");
  return 0;
}
