// The broadcast matrix, generated from the registry: every algorithm x policy x root {0,
// middle, last} x count {0, 1, < P, odd, 1 MiB + 3, 16 MiB} x segment {one element, 1000 bytes,
// 64 KiB, >= message}, with rank-encoded data, compared with MPI_Bcast's result, and with
// guard bytes around the buffer that must stay untouched.
//
// Combinations with more than kMaxSegments segments (one-byte segments of a 1 MiB message)
// are left out: they would take minutes each and test nothing the smaller counts do not.
// RELAY_TEST_MAX_BYTES caps the counts (the MPICH runs at 3+ ranks use it: MPICH's ch4:ucx
// busy-polls, so oversubscribed 16 MiB cases there take minutes; the skip is printed).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "coll/registry.hpp"
#include "mpi_test.hpp"
#include "relay/relay.h"

namespace {

constexpr std::int64_t kMaxSegments = 20000;
constexpr int kGuard = 64;
constexpr unsigned char kGuardByte = 0xA5;

// Byte i of the root's message: depends on the root and on i (so a byte from the wrong place
// or the wrong root is visible) -- and on the segment of i through i itself.
unsigned char root_byte(int root, std::int64_t i) {
  return static_cast<unsigned char>((i * 131 + (i >> 8) * 7 + root * 29 + 1) & 0xff);
}
// What a non-root holds before the broadcast: its own rank's pattern.
unsigned char stale_byte(int rank, std::int64_t i) {
  return static_cast<unsigned char>(~((i * 17 + rank * 101) & 0xff));
}

struct Case {
  relay_bcast_algorithm_t algorithm;
  relay_policy_t policy;
  int root;
  int count;
  long long segment;
  std::string name() const {
    return std::string(relay_bcast_algorithm_name(algorithm)) + "/" + relay_policy_name(policy) +
           " root=" + std::to_string(root) + " count=" + std::to_string(count) +
           " segment=" + std::to_string(segment);
  }
};

// Runs one case and records what went wrong on this rank.
void run_case(const Case& c, const std::vector<unsigned char>& reference,
              relay::test::Failures& failures) {
  const int rank = relay::test::world_rank();
  std::vector<unsigned char> storage(static_cast<std::size_t>(c.count) + 2 * kGuard, kGuardByte);
  unsigned char* buffer = storage.data() + kGuard;
  for (std::int64_t i = 0; i < c.count; ++i) {
    buffer[i] = rank == c.root ? root_byte(c.root, i) : stale_byte(rank, i);
  }
  relay_bcast_options_t options;
  relay_bcast_options_init(&options);
  options.algorithm = c.algorithm;
  options.policy = c.policy;
  options.segment_bytes = c.segment;
  const relay_status_t st =
      relay_bcast(buffer, c.count, MPI_BYTE, c.root, MPI_COMM_WORLD, &options);
  if (st != RELAY_SUCCESS) {
    failures.add(c.name() + ": status " + relay_status_string(st) + ": " + relay_last_error());
    return;
  }
  if (c.count > 0 &&
      std::memcmp(buffer, reference.data(), static_cast<std::size_t>(c.count)) != 0) {
    std::int64_t i = 0;
    while (buffer[i] == reference[i]) ++i;
    const std::int64_t seg = c.segment > 0 ? c.segment : c.count;
    failures.add(c.name() + ": first wrong byte " + std::to_string(i) + " (segment " +
                 std::to_string(i / seg) + "): expected " + std::to_string(reference[i]) + " got " +
                 std::to_string(buffer[i]) +
                 (buffer[i] == stale_byte(rank, i) ? " (never received)" : ""));
  }
  for (int g = 0; g < kGuard; ++g) {
    if (storage[g] != kGuardByte || storage[kGuard + c.count + g] != kGuardByte) {
      failures.add(c.name() + ": bytes outside the buffer were written");
      break;
    }
  }
}

class BcastMatrix : public testing::TestWithParam<relay_bcast_algorithm_t> {};

TEST_P(BcastMatrix, MatchesMpiBcast) {
  const int size = relay::test::world_size();
  const relay_bcast_algorithm_t algorithm = GetParam();
  const bool schedule_based =
      relay::coll::find_algorithm(relay::coll::Collective::bcast, algorithm)->build != nullptr;
  std::vector<int> roots = {0, size / 2, size - 1};
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  std::vector<int> counts = {0, 1, std::max(1, size - 1), 12345, (1 << 20) + 3, 1 << 24};
  if (const char* cap = std::getenv("RELAY_TEST_MAX_BYTES")) {
    const long long max_bytes = std::atoll(cap);
    const auto before = counts.size();
    counts.erase(std::remove_if(counts.begin(), counts.end(), [&](int c) { return c > max_bytes; }),
                 counts.end());
    static bool noted = false;
    if (counts.size() != before && relay::test::world_rank() == 0 && !noted) {
      noted = true;
      std::printf("note: RELAY_TEST_MAX_BYTES=%lld skips %zu count(s)\n", max_bytes,
                  before - counts.size());
    }
  }
  relay::test::Failures failures;
  int ran = 0;
  for (int root : roots) {
    for (int count : counts) {
      // The reference: MPI_Bcast of the same root data.
      std::vector<unsigned char> reference(static_cast<std::size_t>(count));
      for (int i = 0; i < count; ++i) {
        reference[i] = relay::test::world_rank() == root ? root_byte(root, i) : 0;
      }
      MPI_Bcast(reference.data(), count, MPI_BYTE, root, MPI_COMM_WORLD);
      for (relay_policy_t policy : {RELAY_POLICY_BLOCKING, RELAY_POLICY_NONBLOCKING}) {
        for (long long segment : {1LL, 1000LL, 65536LL, static_cast<long long>(count) + 1}) {
          if (count > 0 && (count + segment - 1) / segment > kMaxSegments) continue;
          if (!schedule_based && (policy != RELAY_POLICY_BLOCKING || segment != 1)) continue;
          run_case(Case{algorithm, policy, root, count, segment}, reference, failures);
          ++ran;
        }
      }
    }
  }
  failures.report();
  EXPECT_GT(ran, 0);
}

std::vector<relay_bcast_algorithm_t> registered() {
  std::vector<relay_bcast_algorithm_t> ids;
  for (const auto& a : relay::coll::algorithms(relay::coll::Collective::bcast)) {
    ids.push_back(static_cast<relay_bcast_algorithm_t>(a.id));
  }
  return ids;
}

INSTANTIATE_TEST_SUITE_P(Registry, BcastMatrix, testing::ValuesIn(registered()),
                         [](const testing::TestParamInfo<relay_bcast_algorithm_t>& info) {
                           return std::string(relay_bcast_algorithm_name(info.param));
                         });

}  // namespace
