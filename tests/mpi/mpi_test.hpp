// Helpers for GoogleTest under MPI: every rank runs every test; a check that fails on any rank
// fails the test on all ranks (results are reduced, so no rank is left waiting in a collective).
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

namespace relay::test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

/// True on every rank iff `local` is true on every rank.
inline bool all_ranks(bool local, MPI_Comm comm = MPI_COMM_WORLD) {
  int in = local ? 1 : 0;
  int out = 0;
  MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_MIN, comm);
  return out == 1;
}

/// Collects failure descriptions on this rank; report() turns them into one test result that
/// is the same on every rank.
class Failures {
 public:
  void add(std::string what) {
    ++count_;
    if (first_.size() < 8) first_.push_back(std::move(what));
  }
  bool empty() const { return count_ == 0; }
  void report(MPI_Comm comm = MPI_COMM_WORLD) {
    long long local = count_, global = 0;
    MPI_Allreduce(&local, &global, 1, MPI_LONG_LONG, MPI_SUM, comm);
    for (const auto& f : first_) ADD_FAILURE() << "[rank " << world_rank() << "] " << f;
    if (count_ > static_cast<long long>(first_.size())) {
      ADD_FAILURE() << "[rank " << world_rank() << "] ... and "
                    << count_ - static_cast<long long>(first_.size()) << " more";
    }
    EXPECT_EQ(global, 0) << "failures summed over all ranks";
  }

 private:
  long long count_ = 0;
  std::vector<std::string> first_;
};

}  // namespace relay::test
