// Two broadcasts at once in opposite directions on 2 ranks (rank 0 broadcasts A, rank 1
// broadcasts B), as SUMMA's panel step on a 2-rank row does (one broadcast per owner): relay's
// binomial (one message each way), MPI_Ibcast, and a plain MPI_Isend/MPI_Irecv pair, each
// started together and completed with one waitall; interleaved, median and min of the slower
// rank over REPS rounds. On a full-duplex link all three should take the time of one message.
// Usage: opposite_broadcasts [BYTES (default 4 MiB)] [REPS (default 9)]
#include <mpi.h>
#include <relay/relay.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "opposite_broadcasts: run on 2 ranks (got %d)\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const long bytes = argc > 1 ? std::atol(argv[1]) : 4L << 20;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 9;
  if (bytes < 8 || bytes > (1L << 30) || reps < 1) {
    if (rank == 0) std::fprintf(stderr, "opposite_broadcasts: BYTES in [8, 1 GiB], REPS >= 1\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int count = static_cast<int>(bytes / 8);
  std::vector<double> a(count, rank), b(count, rank);
  relay_bcast_options_t o;
  relay_bcast_options_init(&o);
  o.algorithm = RELAY_BCAST_BINOMIAL;
  o.segment_bytes = 0;
  const char* names[] = {"relay_binomial", "MPI_Ibcast", "MPI_Isend/Irecv"};
  std::vector<double> t[3];
  for (int r = 0; r < reps; ++r) {
    for (int m = 0; m < 3; ++m) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      if (m == 0) {
        relay_request_t q[2];
        if (relay_ibcast(a.data(), count, MPI_DOUBLE, 0, MPI_COMM_WORLD, &o, &q[0]) !=
                RELAY_SUCCESS ||
            relay_ibcast(b.data(), count, MPI_DOUBLE, 1, MPI_COMM_WORLD, &o, &q[1]) !=
                RELAY_SUCCESS ||
            relay_waitall(2, q) != RELAY_SUCCESS) {
          std::fprintf(stderr, "rank %d: %s\n", rank, relay_last_error());
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
      } else if (m == 1) {
        MPI_Request q[2];
        MPI_Ibcast(a.data(), count, MPI_DOUBLE, 0, MPI_COMM_WORLD, &q[0]);
        MPI_Ibcast(b.data(), count, MPI_DOUBLE, 1, MPI_COMM_WORLD, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
      } else {
        MPI_Request q[2];
        double* mine = rank == 0 ? a.data() : b.data();
        double* theirs = rank == 0 ? b.data() : a.data();
        MPI_Irecv(theirs, count, MPI_DOUBLE, 1 - rank, 1 - rank, MPI_COMM_WORLD, &q[0]);
        MPI_Isend(mine, count, MPI_DOUBLE, 1 - rank, rank, MPI_COMM_WORLD, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
      }
      double dt = MPI_Wtime() - t0, slowest = 0;
      MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      t[m].push_back(slowest);
    }
  }
  if (rank == 0) {
    std::printf("%-16s %10s %10s   (%ld bytes each way, %d rounds)\n", "method", "median_s",
                "min_s", bytes, reps);
    for (int m = 0; m < 3; ++m) {
      std::sort(t[m].begin(), t[m].end());
      std::printf("%-16s %10.4f %10.4f\n", names[m], t[m][t[m].size() / 2], t[m][0]);
    }
  }
  MPI_Finalize();
  return 0;
}
