// Benchmark program, not a test: the mover's per-record cost of writing the journal
// (common/journal_codec.hpp). A second thread fills a 4 MiB ring (the default ring: 65,536
// records) with the records of back-to-back hipStreamQuery calls, as a program's thread does; the
// main thread then encodes the ring into journal blocks, as the mover does, and decodes them
// again, as the builder does. Prints one markdown row: ns per record to encode the ring as the
// mover finds it (its lines last written by another CPU) and again from this CPU's cache (the
// encoder's own work), to decode, and journal bytes per record (the best of the rounds: the
// machine is shared).
//
//   journal_codec_bench [ROUNDS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <thread>
#include <vector>

#include "common/journal_codec.hpp"
#include "common/record.hpp"

namespace {

constexpr uint64_t kRing = 65536;

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void fill(prof::Record* ring, uint64_t first_corr, uint64_t t0) {
  for (uint64_t k = 0; k < kRing; ++k) {
    prof::ApiRecord& a = ring[k].api;
    a = {};
    a.type = static_cast<uint8_t>(prof::RecordType::kApi);
    a.api_id = 17;
    a.correlation_id = (uint64_t{1} << 40) | (first_corr + k);
    a.begin_ns = t0 + k * 53 + (k * 7919 % 13);  // ~50 ns apart, a little jitter
    a.end_ns = a.begin_ns + 31 + (k % 5);
    a.stream = 0x5555aaaa0000;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 20;
  std::unique_ptr<prof::Record[]> ring(new prof::Record[kRing]);
  std::vector<unsigned char> out(prof::journal_block_bound(prof::kJournalBlockRecords) *
                                 (kRing / prof::kJournalBlockRecords));
  std::vector<prof::Record> decoded;
  decoded.reserve(kRing);
  double best_encode = 1e9, best_hot = 1e9, best_decode = 1e9;
  size_t bytes = 0;
  for (int r = 0; r < rounds; ++r) {
    std::thread producer(fill, ring.get(), static_cast<uint64_t>(r) * kRing, uint64_t{1} << 32);
    producer.join();  // the ring's lines were last written by another CPU, as the mover finds them
    std::vector<unsigned char*> blocks;
    unsigned char* p = nullptr;
    const auto encode = [&] {
      p = out.data();
      blocks.clear();
      for (uint64_t done = 0; done < kRing; done += prof::kJournalBlockRecords) {
        blocks.push_back(p);
        p = prof::encode_journal_block(
            p, prof::kJournalBlockRecords,
            [&](uint64_t k) -> const prof::Record& { return ring[done + k]; });
      }
    };
    const double t0 = now_s();
    encode();
    const double t_cold = now_s();
    encode();  // the same records, now in this CPU's cache
    const double t1 = now_s();
    bytes = static_cast<size_t>(p - out.data());
    decoded.clear();
    for (unsigned char* b : blocks) {
      prof::JournalBlock head;
      __builtin_memcpy(&head, b, sizeof head);
      if (!prof::decode_journal_block(b + sizeof head, head.payload_bytes, head.records, decoded)) {
        std::fprintf(stderr, "journal_codec_bench: a block did not decode\n");
        return 1;
      }
    }
    const double t2 = now_s();
    if (decoded.size() != kRing ||
        __builtin_memcmp(decoded.data(), ring.get(), kRing * sizeof(prof::Record)) != 0) {
      std::fprintf(stderr, "journal_codec_bench: the round trip changed the records\n");
      return 1;
    }
    best_encode = std::min(best_encode, (t_cold - t0) / kRing);
    best_hot = std::min(best_hot, (t1 - t_cold) / kRing);
    best_decode = std::min(best_decode, (t2 - t1) / kRing);
  }
  std::printf("| %llu | %.1f | %.1f | %.1f | %.2f |\n", static_cast<unsigned long long>(kRing),
              best_encode * 1e9, best_hot * 1e9, best_decode * 1e9,
              static_cast<double>(bytes) / kRing);
  return 0;
}
