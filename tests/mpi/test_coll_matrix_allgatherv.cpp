// The allgatherv part of the collectives matrix, generated from its registry (and auto): every
// algorithm x layout {all blocks empty; uneven with empty blocks, in rank order; one block of
// ~1 MiB among small ones; blocks in a permuted order with gaps, starting past recvbuf's start;
// the same counts placed differently on odd and even ranks} x segment {one element, 7 elements,
// ~1000 bytes, 64 KiB, unsegmented, the algorithm's default; the ~1 MiB layout 64 KiB and
// unsegmented only} x datatype {MPI_INT, MPI_DOUBLE; sendtype MPI_BYTE with recvtype MPI_INT
// once} x policy, with MPI_IN_PLACE and nonblocking calls progressed between slices of other
// work, compared to the byte with MPI_Allgatherv on the same layout: the whole receive buffer,
// so the bytes between blocks and the guard bytes around it must be left as they were.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "coll/registry.hpp"
#include "mpi_test.hpp"
#include "relay/relay.h"

namespace {

using relay::coll::Collective;

constexpr int kGuard = 64;
constexpr unsigned char kGuardByte = 0xA5;

struct Layout {
  std::string name;
  std::vector<int> counts, displs;  // this rank's (displs may differ between ranks)
  int extent = 0;                   // elements of recvbuf the layout spans
};

Layout make_layout(const std::string& name, const std::vector<int>& counts,
                   const std::vector<int>& order, int first, int gap) {
  Layout l{name, counts, std::vector<int>(counts.size(), 0), 0};
  int at = first;
  for (int r : order) {
    l.displs[static_cast<std::size_t>(r)] = at;
    at += counts[static_cast<std::size_t>(r)] + gap;
  }
  l.extent = at;
  return l;
}

std::vector<Layout> layouts(int P, int rank, int elem) {
  std::vector<int> in_order, permuted, zero(static_cast<std::size_t>(P), 0), uneven, large;
  for (int r = 0; r < P; ++r) {
    in_order.push_back(r);
    permuted.push_back(P % 3 == 0 ? P - 1 - r : (r * 3 + 1) % P);
    uneven.push_back((r * 7 + 3) % 5 * 13);  // rank 1 (and every fifth) sends nothing
    large.push_back(r == P / 2 ? (1 << 20) / elem : r % 3 == 1 ? 0 : 5);
  }
  return {make_layout("zero", zero, in_order, 0, 0), make_layout("uneven", uneven, in_order, 0, 0),
          make_layout("large", large, in_order, 0, 0),
          make_layout("permuted_gaps", uneven, permuted, 2, 3),
          make_layout("per_rank_displs", uneven, rank % 2 ? permuted : in_order, rank % 3, 1)};
}

struct Case {
  int algorithm;
  const Layout* layout;
  long long segment;
  MPI_Datatype type;
  relay_policy_t policy;
  bool nonblocking, in_place, send_bytes;  // send_bytes: sendtype MPI_BYTE, recvtype MPI_INT
  std::string name() const {
    return std::string("allgatherv/") +
           relay_coll_algorithm_name(RELAY_COLL_ALLGATHERV, algorithm) + " " + layout->name +
           " segment=" + std::to_string(segment) + (type == MPI_INT ? " int" : " double") + " " +
           relay_policy_name(policy) + (nonblocking ? " nonblocking-call" : "") +
           (in_place ? " in-place" : "") + (send_bytes ? " sendtype=MPI_BYTE" : "");
  }
};

double g_sink = 0;
void other_work() {
  for (int i = 0; i < 2000; ++i) g_sink += std::sqrt(static_cast<double>(i) + g_sink);
}

void run_case(const Case& c, relay::test::Failures& failures) {
  const int rank = relay::test::world_rank();
  const Layout& l = *c.layout;
  const int e = c.type == MPI_INT ? 4 : 8;
  const int n = l.counts[static_cast<std::size_t>(rank)];
  // Rank-encoded data: element i of rank r is r * 2^24 + i (a misplaced block shows whose it is).
  std::vector<unsigned char> send(static_cast<std::size_t>(std::max(1, n * e)));
  for (int i = 0; i < n; ++i) {
    const int v = rank * (1 << 24) + i;
    const double d = v + 0.5;
    std::memcpy(send.data() + i * e, c.type == MPI_INT ? static_cast<const void*>(&v) : &d,
                static_cast<std::size_t>(e));
  }
  const std::vector<unsigned char> sent = send;
  const std::size_t bytes = static_cast<std::size_t>(l.extent) * e + 2 * kGuard;
  std::vector<unsigned char> storage(bytes, kGuardByte), reference(bytes, kGuardByte);
  unsigned char* recv = storage.data() + kGuard;
  const void* send_arg = send.data();
  if (c.in_place) {
    send_arg = MPI_IN_PLACE;
    std::memcpy(recv + l.displs[static_cast<std::size_t>(rank)] * e, send.data(),
                static_cast<std::size_t>(n * e));
  }
  relay_coll_options_t o;
  relay_coll_options_init(&o);
  o.algorithm = c.algorithm;
  o.policy = c.policy;
  o.segment_bytes = c.segment;
  const int sendcount = c.send_bytes ? n * e : n;
  const MPI_Datatype sendtype = c.send_bytes ? MPI_BYTE : c.type;
  relay_status_t st;
  if (c.nonblocking) {
    relay_request_t req = RELAY_REQUEST_NULL;
    st = relay_iallgatherv(send_arg, sendcount, sendtype, recv, l.counts.data(), l.displs.data(),
                           c.type, MPI_COMM_WORLD, &o, &req);
    int flag = 0;
    while (st == RELAY_SUCCESS && !flag) {
      other_work();
      st = relay_test(&req, &flag);
    }
  } else {
    st = relay_allgatherv(send_arg, sendcount, sendtype, recv, l.counts.data(), l.displs.data(),
                          c.type, MPI_COMM_WORLD, &o);
  }
  if (st != RELAY_SUCCESS) {
    failures.add(c.name() + ": status " + relay_status_string(st) + ": " + relay_last_error());
    return;
  }
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size == 1) {  // MPICH 4.0.2's MPI_Allgatherv on one process ignores displs[0]
    std::memcpy(reference.data() + kGuard + l.displs[0] * e, send.data(),
                static_cast<std::size_t>(n * e));
  } else {
    MPI_Allgatherv(send.data(), n, c.type, reference.data() + kGuard, l.counts.data(),
                   l.displs.data(), c.type, MPI_COMM_WORLD);
  }
  if (send != sent) failures.add(c.name() + ": the send buffer was written");
  for (std::size_t i = 0; i < bytes; ++i) {
    if (storage[i] != reference[i]) {
      const long long at = static_cast<long long>(i) - kGuard;
      failures.add(c.name() + ": byte " + std::to_string(at) + " of recvbuf differs from " +
                   "MPI_Allgatherv's" + (at < 0 || at >= l.extent * e ? " (a guard byte)" : ""));
      break;
    }
  }
}

class AllgathervMatrix : public testing::TestWithParam<int> {};

TEST_P(AllgathervMatrix, MatchesMpiAllgatherv) {
  const int algorithm = GetParam();
  const auto* a = relay::coll::find_algorithm(Collective::allgatherv, algorithm);
  const bool schedule_based = a == nullptr || a->build != nullptr;  // auto: maybe
  relay::test::Failures failures;
  int ran = 0, variant = 0;
  for (MPI_Datatype type : {MPI_INT, MPI_DOUBLE}) {
    const long long e = type == MPI_INT ? 4 : 8;
    for (const Layout& l :
         layouts(relay::test::world_size(), relay::test::world_rank(), static_cast<int>(e))) {
      const bool large = l.name == "large";
      for (long long segment :
           {e, 7 * e, 1000 / e * e, 65536LL, 0LL, static_cast<long long>(RELAY_SEGMENT_DEFAULT)}) {
        if (!schedule_based && segment != 0) continue;
        if (large && segment != 65536 && segment != 0) continue;  // ~1 MiB in 4-byte messages
        ++variant;
        Case c{algorithm,
               &l,
               segment,
               type,
               variant % 2 ? RELAY_POLICY_BLOCKING : RELAY_POLICY_NONBLOCKING,
               variant % 3 == 0,
               variant % 5 == 0,
               false};
        c.send_bytes = type == MPI_INT && l.name == "uneven" && segment == 7 * e;
        run_case(c, failures);
        ++ran;
      }
    }
  }
  failures.report();
  EXPECT_GT(ran, 0);
}

std::vector<int> allgatherv_algorithms() {
  std::vector<int> ids = {RELAY_ALLGATHERV_AUTO};
  for (const auto& a : relay::coll::algorithms(Collective::allgatherv)) ids.push_back(a.id);
  return ids;
}

INSTANTIATE_TEST_SUITE_P(Registry, AllgathervMatrix, testing::ValuesIn(allgatherv_algorithms()),
                         [](const testing::TestParamInfo<int>& param_info) {
                           return std::string("allgatherv_") +
                                  relay_coll_algorithm_name(RELAY_COLL_ALLGATHERV,
                                                            param_info.param);
                         });

}  // namespace
