// Stream capture and graphs on the simulated device: what a capture records (nodes, types,
// edges, kernel parameters), that captured work does not run until the graph is launched, what a
// launch runs, and the errors of capture misuse (HIP 5.2 / CUDA semantics).
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "runtimes/hip/hip_runtime_decls.hpp"
#include "test/unit/sim_test_support.hpp"

namespace {

using prof::sim_test::make_stream;

void kernel_a() {}
void kernel_b() {}
const void* const kA = reinterpret_cast<const void*>(&kernel_a);
const void* const kB = reinterpret_cast<const void*>(&kernel_b);

hipStreamCaptureStatus status_of(hipStream_t s) {
  hipStreamCaptureStatus status = hipStreamCaptureStatusInvalidated;
  REQUIRE(hipStreamIsCapturing(s, &status) == hipSuccess);
  return status;
}

std::vector<hipGraphNode_t> nodes_of(hipGraph_t graph) {
  size_t count = 0;
  REQUIRE(hipGraphGetNodes(graph, nullptr, &count) == hipSuccess);
  std::vector<hipGraphNode_t> nodes(count);
  REQUIRE(hipGraphGetNodes(graph, nodes.data(), &count) == hipSuccess);
  REQUIRE(count == nodes.size());
  return nodes;
}

size_t index_of(const std::vector<hipGraphNode_t>& nodes, hipGraphNode_t node) {
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i] == node) return i;
  }
  FAIL("edge names a node that is not in the graph");
  return 0;
}

}  // namespace

TEST_CASE(
    "sim graph: a two-stream capture records nodes, edges and parameters, and runs only when "
    "launched",
    "[sim]") {
  constexpr size_t kBytes = 4096;
  hipStream_t s1 = make_stream(hipStreamNonBlocking);
  hipStream_t s2 = make_stream(hipStreamNonBlocking);
  hipEvent_t fork, join;
  REQUIRE(hipEventCreate(&fork) == hipSuccess);
  REQUIRE(hipEventCreate(&join) == hipSuccess);
  std::vector<unsigned char> host(kBytes, 0x11);
  std::vector<unsigned char> back(kBytes, 0);
  void* device = nullptr;
  REQUIRE(hipMalloc(&device, kBytes) == hipSuccess);
  REQUIRE(hipMemset(device, 0, kBytes) == hipSuccess);

  CHECK(status_of(s1) == hipStreamCaptureStatusNone);
  REQUIRE(hipStreamBeginCapture(s1, hipStreamCaptureModeThreadLocal) == hipSuccess);
  CHECK(status_of(s1) == hipStreamCaptureStatusActive);
  hipStreamCaptureStatus info = hipStreamCaptureStatusNone;
  unsigned long long id = 0;
  REQUIRE(hipStreamGetCaptureInfo(s1, &info, &id) == hipSuccess);
  CHECK(info == hipStreamCaptureStatusActive);
  CHECK(id != 0);
  REQUIRE(hipMemcpyAsync(device, host.data(), kBytes, hipMemcpyHostToDevice, s1) ==
          hipSuccess);                                                                          // 0
  REQUIRE(hipLaunchKernel(kA, dim3{4, 2, 1}, dim3{64, 1, 1}, nullptr, 128, s1) == hipSuccess);  // 1
  REQUIRE(hipEventRecord(fork, s1) == hipSuccess);                                              // 2
  REQUIRE(hipStreamWaitEvent(s2, fork, 0) == hipSuccess);  // s2 joins the capture
  CHECK(status_of(s2) == hipStreamCaptureStatusActive);
  REQUIRE(hipLaunchKernel(kB, dim3{1, 1, 1}, dim3{32, 1, 1}, nullptr, 0, s2) == hipSuccess);  // 3
  REQUIRE(hipEventRecord(join, s2) == hipSuccess);                                            // 4
  REQUIRE(hipMemsetAsync(device, 0x22, kBytes / 2, s1) == hipSuccess);                        // 5
  REQUIRE(hipStreamWaitEvent(s1, join, 0) == hipSuccess);
  REQUIRE(hipLaunchKernel(kA, dim3{1, 1, 1}, dim3{1, 1, 1}, nullptr, 0, s1) == hipSuccess);  // 6
  CHECK(hipEventQuery(fork) == hipErrorCapturedEvent);
  hipGraph_t graph = nullptr;
  REQUIRE(hipStreamEndCapture(s1, &graph) == hipSuccess);
  REQUIRE(graph != nullptr);
  CHECK(status_of(s1) == hipStreamCaptureStatusNone);
  CHECK(status_of(s2) == hipStreamCaptureStatusNone);
  // Nothing ran: the device memory is as it was before the capture.
  REQUIRE(hipMemcpy(back.data(), device, kBytes, hipMemcpyDeviceToHost) == hipSuccess);
  CHECK(back[0] == 0);

  const auto nodes = nodes_of(graph);
  REQUIRE(nodes.size() == 7);
  const hipGraphNodeType expected[] = {hipGraphNodeTypeMemcpy,      hipGraphNodeTypeKernel,
                                       hipGraphNodeTypeEventRecord, hipGraphNodeTypeKernel,
                                       hipGraphNodeTypeEventRecord, hipGraphNodeTypeMemset,
                                       hipGraphNodeTypeKernel};
  for (size_t i = 0; i < nodes.size(); ++i) {
    hipGraphNodeType type = hipGraphNodeTypeCount;
    REQUIRE(hipGraphNodeGetType(nodes[i], &type) == hipSuccess);
    CHECK(type == expected[i]);
  }
  hipKernelNodeParams params{};
  REQUIRE(hipGraphKernelNodeGetParams(nodes[1], &params) == hipSuccess);
  CHECK(params.func == kA);
  CHECK(params.gridDim.x == 4);
  CHECK(params.gridDim.y == 2);
  CHECK(params.blockDim.x == 64);
  CHECK(params.sharedMemBytes == 128);
  CHECK(hipGraphKernelNodeGetParams(nodes[0], &params) == hipErrorInvalidValue);  // a memcpy node

  size_t edge_count = 0;
  REQUIRE(hipGraphGetEdges(graph, nullptr, nullptr, &edge_count) == hipSuccess);
  std::vector<hipGraphNode_t> from(edge_count), to(edge_count);
  REQUIRE(hipGraphGetEdges(graph, from.data(), to.data(), &edge_count) == hipSuccess);
  std::vector<std::pair<size_t, size_t>> edges;
  for (size_t i = 0; i < edge_count; ++i)
    edges.emplace_back(index_of(nodes, from[i]), index_of(nodes, to[i]));
  const std::vector<std::pair<size_t, size_t>> expected_edges = {{0, 1}, {1, 2}, {2, 3}, {3, 4},
                                                                 {2, 5}, {5, 6}, {4, 6}};
  CHECK(edges == expected_edges);

  hipGraphExec_t exec = nullptr;
  char log[16] = "x";
  REQUIRE(hipGraphInstantiate(&exec, graph, nullptr, log, sizeof log) == hipSuccess);
  CHECK(log[0] == '\0');
  REQUIRE(hipGraphDestroy(graph) == hipSuccess);  // the exec does not need the graph
  CHECK(hipGraphDestroy(graph) == hipErrorInvalidValue);
  REQUIRE(hipGraphLaunch(exec, s2) == hipSuccess);
  REQUIRE(hipStreamSynchronize(s2) == hipSuccess);
  REQUIRE(hipMemcpy(back.data(), device, kBytes, hipMemcpyDeviceToHost) == hipSuccess);
  CHECK(back[0] == 0x22);                    // the memset node ran after the copy node
  CHECK(back[kBytes - 1] == 0x11);           // the copy node ran
  CHECK(hipEventQuery(fork) == hipSuccess);  // recorded again by the launch, on s2
  REQUIRE(hipGraphExecDestroy(exec) == hipSuccess);
  CHECK(hipGraphExecDestroy(exec) == hipErrorInvalidValue);
  CHECK(hipGraphLaunch(exec, s2) == hipErrorInvalidValue);

  hipFree(device);
  hipEventDestroy(fork);
  hipEventDestroy(join);
  hipStreamDestroy(s1);
  hipStreamDestroy(s2);
}

TEST_CASE("sim graph: capture misuse fails like HIP and invalidates the capture", "[sim]") {
  hipStream_t s = make_stream(hipStreamNonBlocking);
  hipStream_t blocking = make_stream(hipStreamDefault);
  hipGraph_t graph = reinterpret_cast<hipGraph_t>(0x1);

  CHECK(hipStreamBeginCapture(nullptr, hipStreamCaptureModeGlobal) ==
        hipErrorStreamCaptureUnsupported);
  CHECK(hipStreamBeginCapture(s, static_cast<hipStreamCaptureMode>(7)) == hipErrorInvalidValue);
  CHECK(hipStreamEndCapture(s, &graph) == hipErrorIllegalState);

  // A synchronize on a capturing stream is not capturable: it fails and spoils the capture.
  REQUIRE(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal) == hipSuccess);
  CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal) == hipErrorIllegalState);
  REQUIRE(hipLaunchKernel(kA, dim3{1, 1, 1}, dim3{1, 1, 1}, nullptr, 0, s) == hipSuccess);
  CHECK(hipStreamSynchronize(s) == hipErrorStreamCaptureUnsupported);
  CHECK(status_of(s) == hipStreamCaptureStatusInvalidated);
  CHECK(hipLaunchKernel(kA, dim3{1, 1, 1}, dim3{1, 1, 1}, nullptr, 0, s) ==
        hipErrorStreamCaptureInvalidated);
  CHECK(hipStreamEndCapture(s, &graph) == hipErrorStreamCaptureInvalidated);
  CHECK(graph == nullptr);
  CHECK(status_of(s) == hipStreamCaptureStatusNone);
  CHECK(hipStreamQuery(s) == hipSuccess);  // nothing was queued

  // The legacy null stream would order itself after a capturing blocking stream: an error.
  REQUIRE(hipStreamBeginCapture(blocking, hipStreamCaptureModeRelaxed) == hipSuccess);
  CHECK(hipLaunchKernel(kA, dim3{1, 1, 1}, dim3{1, 1, 1}, nullptr, 0, nullptr) ==
        hipErrorStreamCaptureImplicit);
  CHECK(status_of(blocking) == hipStreamCaptureStatusInvalidated);
  CHECK(hipStreamEndCapture(blocking, &graph) == hipErrorStreamCaptureInvalidated);

  // A device-wide synchronize during a global-mode capture.
  REQUIRE(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal) == hipSuccess);
  CHECK(hipDeviceSynchronize() == hipErrorStreamCaptureUnsupported);
  CHECK(hipStreamEndCapture(s, &graph) == hipErrorStreamCaptureInvalidated);

  // Waiting on an event recorded outside the capture crosses its isolation.
  hipEvent_t outside;
  REQUIRE(hipEventCreate(&outside) == hipSuccess);
  REQUIRE(hipEventRecord(outside, blocking) == hipSuccess);
  REQUIRE(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal) == hipSuccess);
  CHECK(hipStreamWaitEvent(s, outside, 0) == hipErrorStreamCaptureIsolation);
  CHECK(hipStreamEndCapture(s, &graph) == hipErrorStreamCaptureInvalidated);

  // Only the stream that began a capture ends it.
  hipStream_t joined = make_stream(hipStreamNonBlocking);
  REQUIRE(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal) == hipSuccess);
  REQUIRE(hipEventRecord(outside, s) == hipSuccess);
  REQUIRE(hipStreamWaitEvent(joined, outside, 0) == hipSuccess);
  CHECK(hipStreamEndCapture(joined, &graph) == hipErrorStreamCaptureUnmatched);
  REQUIRE(hipStreamEndCapture(s, &graph) == hipSuccess);
  CHECK(nodes_of(graph).size() == 1);
  CHECK(status_of(joined) == hipStreamCaptureStatusNone);
  // The event's last record was captured: it is no point on any stream now.
  CHECK(hipEventSynchronize(outside) == hipErrorCapturedEvent);
  REQUIRE(hipGraphDestroy(graph) == hipSuccess);

  size_t count = 0;
  CHECK(hipGraphGetNodes(nullptr, nullptr, &count) == hipErrorInvalidValue);
  CHECK(hipGraphNodeGetType(nullptr, nullptr) == hipErrorInvalidValue);
  hipGraphExec_t exec = nullptr;
  CHECK(hipGraphInstantiate(&exec, nullptr, nullptr, nullptr, 0) == hipErrorInvalidValue);

  hipEventDestroy(outside);
  hipStreamDestroy(s);
  hipStreamDestroy(blocking);
  hipStreamDestroy(joined);
}
