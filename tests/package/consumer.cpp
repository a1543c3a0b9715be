// Uses the installed C++ header and library: one pipeline broadcast, checked.
#include <relay/relay.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<double> v(100000, rank == 0 ? 4.0 : 0.0);
  relay::BcastOptions options;
  options.algorithm = relay::BcastAlgorithm::pipeline;
  relay::bcast(v.data(), static_cast<int>(v.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD, options);
  int bad = 0;
  for (double x : v) bad += x != 4.0;
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) std::printf("consumer: relay %s, %s\n", relay_version(), total ? "WRONG" : "ok");
  MPI_Finalize();
  return total != 0;
}
