// Batches of rows handed from one producing thread to one or more readers: every reader reads
// every batch, in the order they were published, and a batch is free to refill once every reader
// is done with it. A fixed number of batches, so memory is fixed and a producer ahead of its
// readers waits. Either side may fail (the first error is kept, everyone wakes and stops) or
// stop the other (an abandoned pass). Used by the report's pipe (report/event_pipe.hpp) and its
// reader of kernels and copies (report/event_pass.cpp).
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <vector>

namespace prof::report {

template <typename Batch>
class BatchQueue {
 public:
  BatchQueue(size_t batches, size_t readers)
      : batches_(batches), pending_(batches), full_(readers) {
    for (Batch& b : batches_) free_.push_back(&b);
  }
  BatchQueue(const BatchQueue&) = delete;
  BatchQueue& operator=(const BatchQueue&) = delete;

  std::vector<Batch>& batches() { return batches_; }  // before the first take_free, to size them

  // Producer: a free batch to fill (as its readers left it); nullptr once stopped or failed.
  Batch* take_free() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [this] { return !free_.empty() || stopped_ || error_; });
    if (stopped_ || error_) return nullptr;
    Batch* b = free_.front();
    free_.pop_front();
    return b;
  }
  // Producer: `b` to every reader.
  void publish(Batch* b) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      pending_[index(b)] = full_.size();
      for (auto& queue : full_) queue.push_back(b);
    }
    changed_.notify_all();
  }
  // Producer: `b` back unread (nothing was put in it).
  void give_back(Batch* b) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      free_.push_back(b);
    }
    changed_.notify_all();
  }
  // Producer: no more batches; readers finish what was published.
  void close() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      closed_ = true;
    }
    changed_.notify_all();
  }

  // Reader `reader`: the next batch; nullptr once closed and read, or stopped, or failed.
  Batch* next(size_t reader) {
    std::unique_lock<std::mutex> lock(mutex_);
    std::deque<Batch*>& queue = full_[reader];
    changed_.wait(lock, [&] { return !queue.empty() || closed_ || stopped_ || error_; });
    if (queue.empty() || stopped_ || error_) return nullptr;
    Batch* b = queue.front();
    queue.pop_front();
    return b;
  }
  // Reader: done with `b`; it is free again once every reader is.
  void done(Batch* b) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_[index(b)] > 0) return;
      free_.push_back(b);
    }
    changed_.notify_all();
  }

  // Either side: the first error is kept; both sides stop.
  void fail(std::exception_ptr error) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_) error_ = std::move(error);
    }
    changed_.notify_all();
  }
  std::exception_ptr error() {
    std::lock_guard<std::mutex> lock(mutex_);
    return error_;
  }
  // Either side: nothing more is handed over; waiting calls return nullptr.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopped_ = true;
    }
    changed_.notify_all();
  }

 private:
  size_t index(const Batch* b) const { return static_cast<size_t>(b - batches_.data()); }

  std::vector<Batch> batches_;
  std::vector<size_t> pending_;  // per batch: readers that have not read it yet
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<std::deque<Batch*>> full_;  // per reader
  std::deque<Batch*> free_;
  bool closed_ = false, stopped_ = false;
  std::exception_ptr error_;
};

}  // namespace prof::report
