#include "report/event_pipe.hpp"

#include "report/timeline_events.hpp"

namespace prof::report {

EventPipe::EventPipe(Database& db, std::vector<std::vector<EventConsumer*>> groups,
                     const KernelNames* names)
    : own_names_(names ? nullptr : std::make_unique<KernelNames>(db)),
      names_(names ? *names : *own_names_),
      groups_(std::move(groups)),
      queue_(kBatches, groups_.size()) {
  for (Batch& b : queue_.batches()) b.kinds.reserve(kBatchRows);
  current_ = queue_.take_free();
  for (size_t g = 0; g < groups_.size(); ++g) threads_.emplace_back([this, g] { run(g); });
}

EventPipe::~EventPipe() {
  queue_.stop();  // an abandoned pass (after finish, the threads are done already)
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
  row.names = &names_;
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
  queue_.publish(current_);
  current_ = queue_.take_free();
  if (!current_) std::rethrow_exception(queue_.error());  // a group failed
  current_->clear();
}

void EventPipe::finish() {
  if (current_->kinds.empty())
    queue_.give_back(current_);
  else
    queue_.publish(current_);
  current_ = nullptr;
  queue_.close();
  for (std::thread& t : threads_) t.join();
  if (std::exception_ptr error = queue_.error()) std::rethrow_exception(error);
}

void EventPipe::run(size_t group) {
  const std::vector<EventConsumer*>& consumers = groups_[group];
  while (Batch* b = queue_.next(group)) {
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
      queue_.fail(std::current_exception());
      return;
    }
    queue_.done(b);
  }
}

}  // namespace prof::report
