// Consumers of the pass over the events (report/event_pass.hpp) run on threads of their own: the
// pass reads SQLite on the calling thread and hands the rows, in its order, in batches, to each
// group of consumers (the timeline writers; the CSVs and statistics), one thread per group. Each
// batch is written once and read by every group. On a machine with two cores the report then
// costs about what its reading costs, or half its work, whichever is more. Memory is fixed: a few
// batches of rows, reused. Kernel names are resolved on the pass's thread (KernelRow::name), so
// the groups' threads never touch the database; the names stay valid while the pipe's KernelNames
// lives.
#pragma once
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "db/sqlite_db.hpp"
#include "report/batch_queue.hpp"
#include "report/event_pass.hpp"
#include "report/kernel_names.hpp"

namespace prof::report {

class EventPipe final : public EventConsumer {
 public:
  // `names` is the process's (shared with the reports made after the pass), or nullptr: the pipe
  // reads its own.
  EventPipe(Database& db, std::vector<std::vector<EventConsumer*>> groups,
            const KernelNames* names = nullptr);
  ~EventPipe() override;  // stops and joins the threads (after an exception on the pass's side)
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
  void run(size_t group);

  std::unique_ptr<KernelNames> own_names_;
  const KernelNames& names_;
  std::vector<std::vector<EventConsumer*>> groups_;
  BatchQueue<Batch> queue_;
  Batch* current_ = nullptr;
  std::vector<std::thread> threads_;
};

}  // namespace prof::report
