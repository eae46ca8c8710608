// Stream capture and graphs. Between hipStreamBeginCapture and hipStreamEndCapture, work
// submitted to a capturing stream becomes graph nodes instead of running: kernels, async copies,
// async memsets and event records (hipGraphNodeTypeEventRecord, as in HIP 5.2). A
// hipStreamWaitEvent on an event recorded in the capture adds a dependency, and pulls a stream
// that was not capturing into the capture (fork/join across streams). hipGraphLaunch submits the
// nodes' work, in capture order, to the launch stream with one submit time.
// Handles (hipGraph_t, hipGraphNode_t, hipGraphExec_t) are pointers checked against registries.
#include <algorithm>

#include "common/clock.hpp"
#include "sim/runtime.hpp"

namespace prof::sim {
namespace {

template <typename T>
bool registered(const std::vector<T*>& list, const void* handle) {
  return handle != nullptr && std::find(list.begin(), list.end(), handle) != list.end();
}

Graph* resolve_graph_locked(hipGraph_t handle) {
  Runtime& rt = runtime();
  return registered(rt.graphs, handle) ? reinterpret_cast<Graph*>(handle) : nullptr;
}

GraphNode* resolve_node_locked(hipGraphNode_t handle) {
  if (handle == nullptr) return nullptr;
  for (Graph* g : runtime().graphs) {
    if (registered(g->nodes, handle)) return reinterpret_cast<GraphNode*>(handle);
  }
  return nullptr;
}

Capture* active_capture(uint64_t id) {
  for (Capture* c : runtime().captures) {
    if (c->id == id) return c;
  }
  return nullptr;
}

void set_status(Capture* c) {
  const int status =
      c->invalidated ? hipStreamCaptureStatusInvalidated : hipStreamCaptureStatusActive;
  for (Stream* s : c->streams) s->capture_status.store(status, std::memory_order_release);
}

void invalidate(Capture* c) {
  c->invalidated = true;
  set_status(c);
}

GraphNode* add_node(Stream* stream, hipGraphNodeType type) {
  auto* node = new GraphNode;
  node->type = type;
  node->deps = stream->capture_tail;
  stream->capture->graph->nodes.push_back(node);
  stream->capture_tail.assign(1, node);
  return node;
}

// Ends the capture on every stream in it and forgets it; returns its graph.
Graph* end_capture(Capture* c) {
  for (Stream* s : c->streams) {
    s->capture = nullptr;
    s->capture_tail.clear();
    s->capture_status.store(hipStreamCaptureStatusNone, std::memory_order_release);
  }
  Runtime& rt = runtime();
  rt.captures.erase(std::remove(rt.captures.begin(), rt.captures.end(), c), rt.captures.end());
  Graph* graph = c->graph;
  delete c;
  return graph;
}

void destroy_graph(Graph* g) {
  Runtime& rt = runtime();
  rt.graphs.erase(std::remove(rt.graphs.begin(), rt.graphs.end(), g), rt.graphs.end());
  for (GraphNode* n : g->nodes) delete n;
  delete g;
}

hipStreamCaptureStatus status_of(Stream* s) {
  return static_cast<hipStreamCaptureStatus>(s->capture_status.load(std::memory_order_acquire));
}

}  // namespace

hipError_t check_legacy_capture_locked(Stream* stream) {
  if (!stream->is_null) return hipSuccess;
  hipError_t ret = hipSuccess;
  for (Stream* other : runtime().devices[stream->device].streams) {
    if (other->capture != nullptr && other->blocking && !other->is_null) {
      invalidate(other->capture);
      ret = hipErrorStreamCaptureImplicit;
    }
  }
  return ret;
}

hipError_t capture_op_locked(Stream* stream, Op&& op, uint64_t duration_ns) {
  if (stream->capture->invalidated) return hipErrorStreamCaptureInvalidated;
  const hipGraphNodeType type = op.kind == OpKind::kKernel ? hipGraphNodeTypeKernel
                                : op.kind == OpKind::kCopy ? hipGraphNodeTypeMemcpy
                                                           : hipGraphNodeTypeMemset;
  GraphNode* node = add_node(stream, type);
  node->op = std::move(op);
  node->duration_ns = duration_ns;
  return hipSuccess;
}

hipError_t capture_event_record_locked(Event* event, Stream* stream) {
  if (stream->capture->invalidated) return hipErrorStreamCaptureInvalidated;
  GraphNode* node = add_node(stream, hipGraphNodeTypeEventRecord);
  node->event = event;
  std::lock_guard<std::mutex> guard(event->mutex);
  event->capture_id = stream->capture->id;
  event->captured_node = node;
  return hipSuccess;
}

hipError_t capture_wait_event_locked(Stream* stream, Event* event) {
  Capture* from = event->capture_id != 0 ? active_capture(event->capture_id) : nullptr;
  Capture* into = stream->capture;
  if (from == nullptr && into == nullptr) return hipErrorCapturedEvent;  // its capture has ended
  if (from == nullptr) {
    // An event from outside the capture (or from a capture that has ended).
    invalidate(into);
    return hipErrorStreamCaptureIsolation;
  }
  if (into == nullptr) {
    // Fork: the stream joins the capture, after the recorded node.
    stream->capture = from;
    stream->capture_tail.assign(1, event->captured_node);
    from->streams.push_back(stream);
    set_status(from);
    return from->invalidated ? hipErrorStreamCaptureInvalidated : hipSuccess;
  }
  if (into != from) {
    invalidate(into);
    invalidate(from);
    return hipErrorStreamCaptureMerge;
  }
  if (into->invalidated) return hipErrorStreamCaptureInvalidated;
  auto& tail = stream->capture_tail;
  if (std::find(tail.begin(), tail.end(), event->captured_node) == tail.end())
    tail.push_back(event->captured_node);
  return hipSuccess;
}

hipError_t check_not_capturing_locked(Stream* stream) {
  if (stream->capture == nullptr) return hipSuccess;
  invalidate(stream->capture);
  return hipErrorStreamCaptureUnsupported;
}

hipError_t check_device_sync_capture_locked(int device) {
  hipError_t ret = hipSuccess;
  for (Capture* c : runtime().captures) {
    if (c->mode == hipStreamCaptureModeRelaxed) continue;
    if (device >= 0 && c->origin->device != device) continue;
    invalidate(c);
    ret = hipErrorStreamCaptureUnsupported;
  }
  return ret;
}

}  // namespace prof::sim

using namespace prof::sim;

hipError_t hipStreamBeginCapture(hipStream_t stream, hipStreamCaptureMode mode) {
  Stream* s = resolve_stream(stream);
  if (s == nullptr) return finish(hipErrorInvalidHandle);
  if (mode < hipStreamCaptureModeGlobal || mode > hipStreamCaptureModeRelaxed)
    return finish(hipErrorInvalidValue);
  // The legacy null stream synchronizes with every blocking stream: it cannot be captured.
  if (s->is_null) return finish(hipErrorStreamCaptureUnsupported);
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> guard(rt.lock);
  if (s->capture != nullptr) return finish(hipErrorIllegalState);
  auto* c = new Capture;
  c->id = rt.next_capture_id++;
  c->mode = mode;
  c->origin = s;
  c->graph = new Graph;
  c->streams.push_back(s);
  rt.captures.push_back(c);
  s->capture = c;
  s->capture_tail.clear();
  set_status(c);
  return finish(hipSuccess);
}

hipError_t hipStreamEndCapture(hipStream_t stream, hipGraph_t* pGraph) {
  if (pGraph == nullptr) return finish(hipErrorInvalidValue);
  Stream* s = resolve_stream(stream);
  if (s == nullptr) return finish(hipErrorInvalidHandle);
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> guard(rt.lock);
  Capture* c = s->capture;
  if (c == nullptr) return finish(hipErrorIllegalState);
  if (c->origin != s) return finish(hipErrorStreamCaptureUnmatched);
  const bool invalidated = c->invalidated;
  Graph* graph = end_capture(c);
  if (invalidated) {
    destroy_graph(graph);  // never registered: nobody can name it
    *pGraph = nullptr;
    return finish(hipErrorStreamCaptureInvalidated);
  }
  rt.graphs.push_back(graph);
  *pGraph = reinterpret_cast<hipGraph_t>(graph);
  return finish(hipSuccess);
}

hipError_t hipStreamGetCaptureInfo(hipStream_t stream, hipStreamCaptureStatus* pCaptureStatus,
                                   unsigned long long* pId) {
  if (pCaptureStatus == nullptr) return finish(hipErrorInvalidValue);
  Stream* s = resolve_stream(stream);
  if (s == nullptr) return finish(hipErrorInvalidHandle);
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> guard(rt.lock);
  *pCaptureStatus = status_of(s);
  if (pId != nullptr && s->capture != nullptr) *pId = s->capture->id;
  return finish(hipSuccess);
}

// Lock-free: prof asks this before every kernel, copy and memset it times.
hipError_t hipStreamIsCapturing(hipStream_t stream, hipStreamCaptureStatus* pCaptureStatus) {
  Stream* s = resolve_stream(stream);
  if (s == nullptr) return finish(hipErrorInvalidHandle);
  if (pCaptureStatus == nullptr) return finish(hipErrorInvalidValue);
  *pCaptureStatus = status_of(s);
  return finish(hipSuccess);
}

hipError_t hipGraphDestroy(hipGraph_t graph) {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> guard(rt.lock);
  Graph* g = resolve_graph_locked(graph);
  if (g == nullptr) return finish(hipErrorInvalidValue);
  destroy_graph(g);
  return finish(hipSuccess);
}

// CUDA's contract: with an array, at most *numNodes are written, the rest of a longer array is
// set to null, and *numNodes becomes the number written; without one, *numNodes is the count.
hipError_t hipGraphGetNodes(hipGraph_t graph, hipGraphNode_t* nodes, size_t* numNodes) {
  if (numNodes == nullptr) return finish(hipErrorInvalidValue);
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> guard(rt.lock);
  Graph* g = resolve_graph_locked(graph);
  if (g == nullptr) return finish(hipErrorInvalidValue);
  const size_t count = g->nodes.size();
  if (nodes == nullptr) {
    *numNodes = count;
    return finish(hipSuccess);
  }
  const size_t written = std::min(*numNodes, count);
  for (size_t i = 0; i < *numNodes; ++i) {
    nodes[i] = i < written ? reinterpret_cast<hipGraphNode_t>(g->nodes[i]) : nullptr;
  }
  *numNodes = written;
  return finish(hipSuccess);
}

// Edges in node order, then in each node's dependency order.
hipError_t hipGraphGetEdges(hipGraph_t graph, hipGraphNode_t* from, hipGraphNode_t* to,
                            size_t* numEdges) {
  if (numEdges == nullptr || (from == nullptr) != (to == nullptr))
    return finish(hipErrorInvalidValue);
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> guard(rt.lock);
  Graph* g = resolve_graph_locked(graph);
  if (g == nullptr) return finish(hipErrorInvalidValue);
  size_t count = 0;
  for (GraphNode* n : g->nodes) count += n->deps.size();
  if (from == nullptr) {
    *numEdges = count;
    return finish(hipSuccess);
  }
  size_t i = 0;
  for (GraphNode* n : g->nodes) {
    for (GraphNode* d : n->deps) {
      if (i >= *numEdges) break;
      from[i] = reinterpret_cast<hipGraphNode_t>(d);
      to[i] = reinterpret_cast<hipGraphNode_t>(n);
      ++i;
    }
  }
  for (size_t j = i; j < *numEdges; ++j) from[j] = to[j] = nullptr;
  *numEdges = i;
  return finish(hipSuccess);
}

hipError_t hipGraphNodeGetType(hipGraphNode_t node, hipGraphNodeType* pType) {
  if (pType == nullptr) return finish(hipErrorInvalidValue);
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> guard(rt.lock);
  GraphNode* n = resolve_node_locked(node);
  if (n == nullptr) return finish(hipErrorInvalidValue);
  *pType = n->type;
  return finish(hipSuccess);
}

hipError_t hipGraphKernelNodeGetParams(hipGraphNode_t node, hipKernelNodeParams* pNodeParams) {
  if (pNodeParams == nullptr) return finish(hipErrorInvalidValue);
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> guard(rt.lock);
  GraphNode* n = resolve_node_locked(node);
  if (n == nullptr || n->type != hipGraphNodeTypeKernel) return finish(hipErrorInvalidValue);
  pNodeParams->blockDim = n->op.block;
  pNodeParams->gridDim = n->op.grid;
  pNodeParams->func = reinterpret_cast<void*>(n->op.function);
  pNodeParams->sharedMemBytes = static_cast<unsigned int>(n->op.shared_mem_bytes);
  pNodeParams->kernelParams = nullptr;  // arguments are not kept: device code never runs
  pNodeParams->extra = nullptr;
  return finish(hipSuccess);
}

hipError_t hipGraphInstantiate(hipGraphExec_t* pGraphExec, hipGraph_t graph,
                               hipGraphNode_t* pErrorNode, char* pLogBuffer, size_t bufferSize) {
  if (pGraphExec == nullptr) return finish(hipErrorInvalidValue);
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> guard(rt.lock);
  Graph* g = resolve_graph_locked(graph);
  if (g == nullptr) return finish(hipErrorInvalidValue);
  auto* exec = new GraphExec;
  exec->nodes.reserve(g->nodes.size());
  for (const GraphNode* n : g->nodes) {
    GraphNode copy = *n;
    copy.deps.clear();  // capture order is a topological order: the exec runs in it
    exec->nodes.push_back(std::move(copy));
  }
  rt.execs.push_back(exec);
  if (pErrorNode != nullptr) *pErrorNode = nullptr;
  if (pLogBuffer != nullptr && bufferSize > 0) pLogBuffer[0] = '\0';
  *pGraphExec = reinterpret_cast<hipGraphExec_t>(exec);
  return finish(hipSuccess);
}

hipError_t hipGraphExecDestroy(hipGraphExec_t graphExec) {
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> guard(rt.lock);
  if (!registered(rt.execs, graphExec)) return finish(hipErrorInvalidValue);
  auto* exec = reinterpret_cast<GraphExec*>(graphExec);
  rt.execs.erase(std::remove(rt.execs.begin(), rt.execs.end(), exec), rt.execs.end());
  delete exec;
  return finish(hipSuccess);
}

// The nodes run one after another on `stream` (a valid schedule of the graph; a device could run
// independent branches concurrently). Launching into a capturing stream (a child-graph node) is
// not modelled and fails with hipErrorStreamCaptureUnsupported.
hipError_t hipGraphLaunch(hipGraphExec_t graphExec, hipStream_t stream) {
  Stream* s = resolve_stream(stream);
  if (s == nullptr) return finish(hipErrorInvalidHandle);
  Runtime& rt = runtime();
  std::lock_guard<std::mutex> guard(rt.lock);
  if (!registered(rt.execs, graphExec)) return finish(hipErrorInvalidValue);
  if (s->capture != nullptr) return finish(hipErrorStreamCaptureUnsupported);
  if (const hipError_t ret = check_legacy_capture_locked(s); ret != hipSuccess) return finish(ret);
  const auto* exec = reinterpret_cast<const GraphExec*>(graphExec);
  const uint64_t submit_ns = take_call_entry();
  for (const GraphNode& node : exec->nodes) {
    if (node.type == hipGraphNodeTypeEventRecord) {
      if (rt.event_table.contains(node.event)) record_event_locked(node.event, s, submit_ns);
      continue;
    }
    Op op = node.op;
    op.deps.clear();
    submit_locked(s, std::move(op), node.duration_ns, submit_ns);
  }
  return finish(hipSuccess);
}
