#include "report/event_pipe.hpp"

#include "report/timeline_events.hpp"

namespace prof::report {

EventPipe::EventPipe(Database& db, std::vector<std::vector<EventConsumer*>> groups)
    : db_(db), groups_(std::move(groups)), batches_(kBatches), full_(groups_.size()) {
  for (Batch& b : batches_) {
    b.kinds.reserve(kBatchRows);
    free_.push_back(&b);
  }
  current_ = free_.front();
  free_.pop_front();
  for (size_t g = 0; g < groups_.size(); ++g) threads_.emplace_back([this, g] { run(g); });
}

EventPipe::~EventPipe() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
    for (auto& queue : full_) queue.clear();  // an abandoned pass: the consumers see no more rows
  }
  changed_.notify_all();
  for (std::thread& t : threads_)
    if (t.joinable()) t.join();
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
  if (r.name_id) row.name = &resolve_kernel_name(db_, names_, *r.name_id);
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
  current_->readers = static_cast<int>(groups_.size());
  for (auto& queue : full_) queue.push_back(current_);
  changed_.notify_all();
  changed_.wait(lock, [this] { return !free_.empty() || error_; });
  if (error_) std::rethrow_exception(error_);
  current_ = free_.front();
  free_.pop_front();
}

void EventPipe::finish() {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!current_->kinds.empty()) {
      current_->readers = static_cast<int>(groups_.size());
      for (auto& queue : full_) queue.push_back(current_);
    }
    current_ = nullptr;
    closing_ = true;
  }
  changed_.notify_all();
  for (std::thread& t : threads_) t.join();
  if (error_) std::rethrow_exception(error_);
}

void EventPipe::run(size_t group) {
  const std::vector<EventConsumer*>& consumers = groups_[group];
  std::deque<Batch*>& full = full_[group];
  for (;;) {
    Batch* b = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [this, &full] { return !full.empty() || closing_ || error_; });
      if (full.empty() || error_) return;  // closing and every batch is done, or another group failed
      b = full.front();
      full.pop_front();
    }
    try {
      size_t a = 0, k = 0, c = 0;
      for (Kind kind : b->kinds) {
        switch (kind) {
          case Kind::kApi:
            for (EventConsumer* consumer : consumers) consumer->api(b->apis[a]);
            ++a;
            break;
          case Kind::kKernel:
            for (EventConsumer* consumer : consumers) consumer->kernel(b->kernels[k]);
            ++k;
            break;
          case Kind::kCopy:
            for (EventConsumer* consumer : consumers) consumer->copy(b->copies[c]);
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
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--b->readers > 0) continue;  // another group still reads it
      b->clear();
      free_.push_back(b);
    }
    changed_.notify_all();
  }
}

}  // namespace prof::report
