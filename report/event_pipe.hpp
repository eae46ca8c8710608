// Consumers of the pass over the events (report/event_pass.hpp) run on a second thread: the pass
// reads SQLite and feeds its own consumers (the CSVs, the statistics) on the calling thread, and
// hands the same rows, in the same order, to the pipe's consumers (the timeline writers) in
// batches. On a machine with two cores the report then costs about what its larger half costs.
// Memory is fixed: a few batches of rows, reused. Kernel names are resolved on the pass's thread
// (KernelRow::name), so the consumers' thread never touches the database; the strings stay valid
// while the pipe lives.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "collector/sqlite_db.hpp"
#include "report/demangle.hpp"
#include "report/event_pass.hpp"

namespace prof::report {

class EventPipe final : public EventConsumer {
 public:
  EventPipe(Database& db, std::vector<EventConsumer*> consumers);
  ~EventPipe() override;  // stops and joins the thread (after an exception on the pass's side)
  EventPipe(const EventPipe&) = delete;
  EventPipe& operator=(const EventPipe&) = delete;

  void api(const ApiRow& r) override;
  void kernel(const KernelRow& r) override;
  void copy(const CopyRow& r) override;
  // Hands over the last rows and waits until every consumer has seen them; rethrows what a
  // consumer threw (also thrown by the next row handed over once a consumer has failed).
  void finish();

 private:
  enum class Kind : uint8_t { kApi, kKernel, kCopy };
  struct Batch {
    std::vector<Kind> kinds;
    std::vector<ApiRow> apis;
    std::vector<KernelRow> kernels;
    std::vector<CopyRow> copies;
    size_t api_count = 0, kernel_count = 0, copy_count = 0;
    void clear() {
      kinds.clear();
      api_count = kernel_count = copy_count = 0;
    }
  };
  static constexpr size_t kBatchRows = 2048;
  static constexpr int kBatches = 4;

  void added();  // after a row went into current_: hands the batch over when it is full
  void hand_over();
  void run();

  Database& db_;
  KernelNameCache names_;
  std::vector<EventConsumer*> consumers_;
  std::vector<Batch> batches_;
  Batch* current_ = nullptr;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch*> full_, free_;
  bool closing_ = false;  // no more batches will come
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace prof::report
