#include "report/event_pipe.hpp"

#include "report/timeline_events.hpp"

namespace prof::report {

EventPipe::EventPipe(Database& db, std::vector<EventConsumer*> consumers)
    : db_(db), consumers_(std::move(consumers)), batches_(kBatches) {
  for (Batch& b : batches_) {
    b.kinds.reserve(kBatchRows);
    free_.push_back(&b);
  }
  current_ = free_.front();
  free_.pop_front();
  thread_ = std::thread([this] { run(); });
}

EventPipe::~EventPipe() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
    full_.clear();  // an abandoned pass: the consumers see no more rows
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void EventPipe::api(const ApiRow& r) {
  Batch& b = *current_;
  if (b.api_count == b.apis.size()) b.apis.emplace_back();
  b.apis[b.api_count++] = r;  // assignment: the args string keeps its capacity
  b.kinds.push_back(Kind::kApi);
  added();
}

void EventPipe::kernel(const KernelRow& r) {
  Batch& b = *current_;
  if (b.kernel_count == b.kernels.size()) b.kernels.emplace_back();
  KernelRow& row = b.kernels[b.kernel_count++];
  row = r;
  if (r.name_id && r.device_begin_ns && r.device_end_ns) row.name = &resolve_kernel_name(db_, names_, *r.name_id);
  b.kinds.push_back(Kind::kKernel);
  added();
}

void EventPipe::copy(const CopyRow& r) {
  Batch& b = *current_;
  if (b.copy_count == b.copies.size()) b.copies.emplace_back();
  b.copies[b.copy_count++] = r;
  b.kinds.push_back(Kind::kCopy);
  added();
}

void EventPipe::added() {
  if (current_->kinds.size() >= kBatchRows) hand_over();
}

void EventPipe::hand_over() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (error_) std::rethrow_exception(error_);
  full_.push_back(current_);
  changed_.notify_all();
  changed_.wait(lock, [this] { return !free_.empty() || error_; });
  if (error_) std::rethrow_exception(error_);
  current_ = free_.front();
  free_.pop_front();
}

void EventPipe::finish() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!current_->kinds.empty()) full_.push_back(current_);
    current_ = nullptr;
    closing_ = true;
  }
  changed_.notify_all();
  thread_.join();
  if (error_) std::rethrow_exception(error_);
}

void EventPipe::run() {
  for (;;) {
    Batch* b = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [this] { return !full_.empty() || closing_; });
      if (full_.empty()) return;  // closing, and every batch is done
      b = full_.front();
      full_.pop_front();
    }
    try {
      size_t a = 0, k = 0, c = 0;
      for (Kind kind : b->kinds) {
        switch (kind) {
          case Kind::kApi:
            for (EventConsumer* consumer : consumers_) consumer->api(b->apis[a]);
            ++a;
            break;
          case Kind::kKernel:
            for (EventConsumer* consumer : consumers_) consumer->kernel(b->kernels[k]);
            ++k;
            break;
          case Kind::kCopy:
            for (EventConsumer* consumer : consumers_) consumer->copy(b->copies[c]);
            ++c;
            break;
        }
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = std::current_exception();
      changed_.notify_all();
      return;
    }
    b->clear();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      free_.push_back(b);
    }
    changed_.notify_all();
  }
}

}  // namespace prof::report
