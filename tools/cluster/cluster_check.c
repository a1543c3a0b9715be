/* cluster_check: measurements and correctness checks for relay's emulated cluster.
 *
 * Plain MPI and POSIX, so that it builds with any MPI's mpicc. tools/cluster/relay-cluster builds
 * it on demand (or uses $RELAY_CLUSTER_CHECK_BIN, or the relay_cluster_check CMake target) and
 * parses its output; it also runs on any real cluster.
 *
 *   placement  every rank reports its host name and the device of its /dev/shm; checks that
 *              ranks share a /dev/shm exactly when they share a host name
 *   pingpong   ranks 0 and 1: half round-trip time of a small message (latency) and of a large
 *              one (one-way time, bandwidth)
 *   incast     ranks 1..S send a message to rank 0 at the same time: bandwidth into rank 0
 *   bcast      MPI_Bcast from rank 0: time until the last rank has the data
 *   verify     MPI_Bcast correctness: sizes around the eager limit, several roots, rank-encoded
 *              bytes and guard bytes around every buffer
 *   all        placement, pingpong, incast and bcast in one launch
 * Several modes can be given separated by commas (placement,verify); they run in that order.
 *
 * Output (rank 0, stdout): one line per figure, "result <name> <value> <unit> [key=value...]",
 * plus human-readable lines that start with "#". Exit status: 0 ok, 1 a check failed, 2 usage.
 * Ranks not taking part in a measurement wait in a barrier that sleeps between tests, so that
 * they leave the CPU to the ranks measuring and to packet processing.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { HOST_LEN = 64, GUARD_BYTES = 64, TAG = 7 };

typedef struct Options {
  long latency_bytes;
  int latency_reps;
  long bytes; /* ping-pong bandwidth message */
  long incast_bytes;
  int incast_senders; /* 0: every rank but 0 */
  long bcast_bytes;
  int reps; /* repetitions of the large-message measurements */
} Options;

typedef struct HostInfo {
  char host[HOST_LEN];
  unsigned long long shm_dev;
} HostInfo;

static int world_rank;
static int world_size;

static void usage(FILE* out) {
  fputs(
      "usage: cluster_check MODE[,MODE...] [options]\n"
      "modes: placement | pingpong | incast | bcast | verify | all (= the first four)\n"
      "options (sizes take K/M/G or KiB/MiB/GiB suffixes, powers of 1024):\n"
      "  --latency-bytes N   small ping-pong message (default 8)\n"
      "  --latency-reps N    small ping-pong round trips (default 1000)\n"
      "  --bytes N           large ping-pong message (default 4MiB)\n"
      "  --incast-bytes N    message per incast sender (default 4MiB)\n"
      "  --incast-senders S  ranks 1..S send to rank 0 (default: all other ranks)\n"
      "  --bcast-bytes N     broadcast message (default 8MiB)\n"
      "  --reps N            repetitions of each large-message measurement (default 5)\n",
      out);
}

static int parse_size(const char* text, long* out) {
  char* end = NULL;
  errno = 0;
  double value = strtod(text, &end);
  if (errno != 0 || end == text || value < 0) return -1;
  double scale = 1;
  if (*end == 'K' || *end == 'k')
    scale = 1024.0;
  else if (*end == 'M' || *end == 'm')
    scale = 1024.0 * 1024.0;
  else if (*end == 'G' || *end == 'g')
    scale = 1024.0 * 1024.0 * 1024.0;
  if (scale > 1) {
    ++end;
    if (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0) end += strlen(end);
  } else if (strcmp(end, "B") == 0) {
    ++end;
  }
  if (*end != '\0') return -1;
  double bytes = value * scale;
  if (bytes > (double)INT_MAX) return -1; /* MPI counts are int */
  *out = (long)bytes;
  return 0;
}

static int parse_int(const char* text, int* out) {
  char* end = NULL;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < 0 || value > INT_MAX) return -1;
  *out = (int)value;
  return 0;
}

/* Returns 0 on success, 2 on a usage error (already reported by rank 0). */
static int parse_options(int argc, char** argv, int first, Options* opt) {
  for (int i = first; i < argc; ++i) {
    const char* name = argv[i];
    const char* value = i + 1 < argc ? argv[i + 1] : NULL;
    int bad = value == NULL;
    if (!bad) {
      if (strcmp(name, "--latency-bytes") == 0)
        bad = parse_size(value, &opt->latency_bytes);
      else if (strcmp(name, "--latency-reps") == 0)
        bad = parse_int(value, &opt->latency_reps);
      else if (strcmp(name, "--bytes") == 0)
        bad = parse_size(value, &opt->bytes);
      else if (strcmp(name, "--incast-bytes") == 0)
        bad = parse_size(value, &opt->incast_bytes);
      else if (strcmp(name, "--incast-senders") == 0)
        bad = parse_int(value, &opt->incast_senders);
      else if (strcmp(name, "--bcast-bytes") == 0)
        bad = parse_size(value, &opt->bcast_bytes);
      else if (strcmp(name, "--reps") == 0)
        bad = parse_int(value, &opt->reps);
      else {
        if (world_rank == 0) fprintf(stderr, "cluster_check: unknown option '%s'\n", name);
        return 2;
      }
    }
    if (bad) {
      if (world_rank == 0)
        fprintf(stderr, "cluster_check: option %s needs a valid value (got '%s')\n", name,
                value ? value : "nothing");
      return 2;
    }
    ++i;
  }
  if (opt->reps < 1 || opt->latency_reps < 1) {
    if (world_rank == 0) fprintf(stderr, "cluster_check: --reps and --latency-reps must be >= 1\n");
    return 2;
  }
  return 0;
}

/* A barrier that sleeps while it waits, so idle ranks do not compete for the CPU. */
static void sleepy_barrier(MPI_Comm comm) {
  MPI_Request request;
  int done = 0;
  const struct timespec nap = {0, 1000000}; /* 1 ms */
  MPI_Ibarrier(comm, &request);
  for (;;) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (done) break;
    nanosleep(&nap, NULL);
  }
}

static char* alloc_buffer(long bytes) {
  char* buf = malloc((size_t)bytes + 1);
  if (buf == NULL) {
    fprintf(stderr, "cluster_check: rank %d: cannot allocate %ld bytes\n", world_rank, bytes);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(buf, 0x5a, (size_t)bytes + 1); /* touch every page before timing */
  return buf;
}

static int compare_doubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* values, int n) {
  qsort(values, (size_t)n, sizeof *values, compare_doubles);
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

static double minimum(const double* values, int n) {
  double m = values[0];
  for (int i = 1; i < n; ++i)
    if (values[i] < m) m = values[i];
  return m;
}

static void host_info(HostInfo* info) {
  memset(info, 0, sizeof *info);
  if (gethostname(info->host, HOST_LEN - 1) != 0) snprintf(info->host, HOST_LEN, "?");
  struct stat st;
  info->shm_dev = stat("/dev/shm", &st) == 0 ? (unsigned long long)st.st_dev : 0;
}

/* placement: one line per rank; fails if /dev/shm is shared across host names or the other
 * way round (then shared-memory transports of different "nodes" would collide). */
static int run_placement(const Options* opt) {
  (void)opt;
  HostInfo mine;
  host_info(&mine);
  HostInfo* all = world_rank == 0 ? malloc(sizeof *all * (size_t)world_size) : NULL;
  if (world_rank == 0 && all == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Gather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, 0, MPI_COMM_WORLD);
  int failed = 0;
  if (world_rank == 0) {
    int nodes = 0, max_per_node = 0;
    for (int r = 0; r < world_size; ++r) {
      printf("placement rank=%d host=%s shm_dev=%llu\n", r, all[r].host, all[r].shm_dev);
      int first = 1, count = 0;
      for (int s = 0; s < world_size; ++s) {
        int same_host = strcmp(all[r].host, all[s].host) == 0;
        int same_shm = all[r].shm_dev == all[s].shm_dev;
        if (same_host) {
          ++count;
          if (s < r) first = 0;
        }
        if (same_host != same_shm && s > r) {
          printf("# placement error: ranks %d (%s) and %d (%s) %s /dev/shm\n", r, all[r].host, s,
                 all[s].host, same_shm ? "share" : "do not share");
          failed = 1;
        }
      }
      nodes += first;
      if (count > max_per_node) max_per_node = count;
    }
    printf("result placement_nodes %d count\n", nodes);
    printf("result placement_max_ranks_per_node %d count\n", max_per_node);
    printf("result placement_errors %d count\n", failed);
    free(all);
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return failed;
}

static int same_host_as_rank0(int rank) {
  HostInfo mine;
  host_info(&mine);
  char host0[HOST_LEN];
  memcpy(host0, mine.host, HOST_LEN);
  MPI_Bcast(host0, HOST_LEN, MPI_CHAR, 0, MPI_COMM_WORLD);
  int same = strcmp(host0, mine.host) == 0;
  int result = same;
  MPI_Bcast(&result, 1, MPI_INT, rank, MPI_COMM_WORLD);
  return result;
}

/* Times `reps` round trips of `bytes` between ranks 0 and 1 after `warmup` untimed ones; rank
 * 0 stores the half round-trip times in half_rtt. */
static void pingpong(char* buf, long bytes, int warmup, int reps, double* half_rtt) {
  const int peer = 1 - world_rank;
  for (int i = -warmup; i < reps; ++i) {
    double t0 = MPI_Wtime();
    if (world_rank == 0) {
      MPI_Send(buf, (int)bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD);
      MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, (int)bytes, MPI_BYTE, peer, TAG, MPI_COMM_WORLD);
    }
    if (i >= 0 && world_rank == 0) half_rtt[i] = 0.5 * (MPI_Wtime() - t0);
  }
}

static int run_pingpong(const Options* opt) {
  if (world_size < 2) {
    if (world_rank == 0) fprintf(stderr, "cluster_check: pingpong needs 2 ranks or more\n");
    return 2;
  }
  if (same_host_as_rank0(1) && world_rank == 0)
    printf("# note: ranks 0 and 1 share a host: ping-pong does not cross the network\n");
  if (world_rank <= 1) {
    long largest = opt->bytes > opt->latency_bytes ? opt->bytes : opt->latency_bytes;
    char* buf = alloc_buffer(largest);
    int n = opt->latency_reps > opt->reps ? opt->latency_reps : opt->reps;
    double* t = malloc(sizeof *t * (size_t)n);
    if (t == NULL) MPI_Abort(MPI_COMM_WORLD, 1);

    pingpong(buf, opt->latency_bytes, 100, opt->latency_reps, t);
    if (world_rank == 0) {
      double lat_min = minimum(t, opt->latency_reps);
      double lat = median(t, opt->latency_reps);
      printf("result pingpong_latency %.9g s bytes=%ld reps=%d min=%.9g\n", lat, opt->latency_bytes,
             opt->latency_reps, lat_min);
    }
    pingpong(buf, opt->bytes, 1, opt->reps, t);
    if (world_rank == 0) {
      double t_min = minimum(t, opt->reps);
      double one_way = median(t, opt->reps);
      printf("result pingpong_oneway %.9g s bytes=%ld reps=%d min=%.9g\n", one_way, opt->bytes,
             opt->reps, t_min);
      printf("result pingpong_bandwidth %.9g bit/s bytes=%ld reps=%d\n",
             8.0 * (double)opt->bytes / one_way, opt->bytes, opt->reps);
    }
    free(t);
    free(buf);
  }
  sleepy_barrier(MPI_COMM_WORLD);
  return 0;
}

static int run_incast(const Options* opt) {
  int senders = opt->incast_senders ? opt->incast_senders : world_size - 1;
  if (senders < 1 || senders > world_size - 1) {
    if (world_rank == 0)
      fprintf(stderr, "cluster_check: incast needs 1 <= senders (%d) <= ranks - 1 (%d)\n", senders,
              world_size - 1);
    return 2;
  }
  MPI_Comm comm;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank <= senders ? 0 : MPI_UNDEFINED, world_rank, &comm);
  if (comm != MPI_COMM_NULL) {
    char* buf = alloc_buffer(world_rank == 0 ? opt->incast_bytes * senders : opt->incast_bytes);
    MPI_Request* requests = malloc(sizeof *requests * (size_t)senders);
    /* real statuses: MPICH's MPI_STATUSES_IGNORE trips GCC's -Wstringop-overflow */
    MPI_Status* statuses = malloc(sizeof *statuses * (size_t)senders);
    double* t = malloc(sizeof *t * (size_t)opt->reps);
    if (requests == NULL || statuses == NULL || t == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = -1; i < opt->reps; ++i) {
      MPI_Barrier(comm);
      double t0 = MPI_Wtime();
      if (world_rank == 0) {
        for (int s = 1; s <= senders; ++s)
          MPI_Irecv(buf + (size_t)(s - 1) * (size_t)opt->incast_bytes, (int)opt->incast_bytes,
                    MPI_BYTE, s, TAG, comm, &requests[s - 1]);
        MPI_Waitall(senders, requests, statuses);
        if (i >= 0) t[i] = MPI_Wtime() - t0;
      } else {
        MPI_Send(buf, (int)opt->incast_bytes, MPI_BYTE, 0, TAG, comm);
      }
    }
    if (world_rank == 0) {
      double time = median(t, opt->reps);
      printf("result incast_time %.9g s senders=%d bytes=%ld reps=%d\n", time, senders,
             opt->incast_bytes, opt->reps);
      printf("result incast_bandwidth %.9g bit/s senders=%d bytes=%ld reps=%d\n",
             8.0 * (double)opt->incast_bytes * senders / time, senders, opt->incast_bytes,
             opt->reps);
    }
    free(t);
    free(statuses);
    free(requests);
    free(buf);
    MPI_Comm_free(&comm);
  }
  sleepy_barrier(MPI_COMM_WORLD);
  return 0;
}

static int run_bcast(const Options* opt) {
  char* buf = alloc_buffer(opt->bcast_bytes);
  double* t = malloc(sizeof *t * (size_t)opt->reps);
  if (t == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  for (int i = -1; i < opt->reps; ++i) {
    sleepy_barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD); /* a tight barrier right before timing */
    double t0 = MPI_Wtime();
    MPI_Bcast(buf, (int)opt->bcast_bytes, MPI_BYTE, 0, MPI_COMM_WORLD);
    double local = MPI_Wtime() - t0, slowest = 0;
    MPI_Reduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (i >= 0) t[i] = slowest;
  }
  if (world_rank == 0)
    printf("result bcast_time %.9g s ranks=%d bytes=%ld reps=%d min=%.9g\n", median(t, opt->reps),
           world_size, opt->bcast_bytes, opt->reps, minimum(t, opt->reps));
  free(t);
  free(buf);
  sleepy_barrier(MPI_COMM_WORLD);
  return 0;
}

static unsigned char pattern(int root, long size, long i) {
  return (unsigned char)((i * 131 + root * 29 + size * 7 + 1) ^ (i >> 8));
}

/* Broadcast correctness: every rank checks every byte and the guard bytes on both sides. */
static int run_verify(const Options* opt) {
  (void)opt;
  const long sizes[] = {0, 1, 7, 4096, 65535, 65536, 65537, (1L << 20) + 3, 4L << 20};
  const int n_sizes = (int)(sizeof sizes / sizeof sizes[0]);
  int roots[3] = {0, world_size - 1, world_size / 2};
  int n_roots = world_size == 1 ? 1 : world_size == 2 ? 2 : 3;
  long largest = sizes[n_sizes - 1];
  unsigned char* mem = malloc((size_t)largest + 2 * GUARD_BYTES);
  if (mem == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  unsigned char* buf = mem + GUARD_BYTES;
  long errors = 0, cases = 0;
  for (int r = 0; r < n_roots; ++r) {
    for (int s = 0; s < n_sizes; ++s) {
      int root = roots[r];
      long size = sizes[s];
      memset(mem, 0xa5, (size_t)largest + 2 * GUARD_BYTES);
      if (world_rank == root)
        for (long i = 0; i < size; ++i) buf[i] = pattern(root, size, i);
      MPI_Bcast(buf, (int)size, MPI_BYTE, root, MPI_COMM_WORLD);
      long wrong = 0, first = -1;
      for (long i = 0; i < size; ++i)
        if (buf[i] != pattern(root, size, i)) {
          if (first < 0) first = i;
          ++wrong;
        }
      long guard_hit = -1;
      for (long i = 0; i < GUARD_BYTES && guard_hit < 0; ++i)
        if (mem[i] != 0xa5) guard_hit = i - GUARD_BYTES;
      for (long i = size; i < largest + GUARD_BYTES && guard_hit < 0; ++i)
        if (buf[i] != 0xa5) guard_hit = i;
      if (first >= 0)
        fprintf(stderr,
                "cluster_check: verify: rank %d root %d size %ld: %ld wrong bytes, first at "
                "offset %ld (expected 0x%02x, got 0x%02x)\n",
                world_rank, root, size, wrong, first, pattern(root, size, first), buf[first]);
      if (guard_hit >= 0)
        fprintf(stderr,
                "cluster_check: verify: rank %d root %d size %ld: byte at offset %ld outside "
                "the message was overwritten\n",
                world_rank, root, size, guard_hit);
      errors += (first >= 0) + (guard_hit >= 0);
      ++cases;
    }
  }
  free(mem);
  long total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (world_rank == 0) {
    printf("result verify_cases %ld count ranks=%d\n", cases, world_size);
    printf("result verify_errors %ld count\n", total);
    printf("# verify: %ld broadcasts (%d roots x %d sizes) on %d ranks: %s\n", cases, n_roots,
           n_sizes, world_size, total ? "FAILED" : "all correct");
  }
  return total ? 1 : 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  Options opt = {8, 1000, 4L << 20, 4L << 20, 0, 8L << 20, 5};
  const char* mode = argc > 1 ? argv[1] : "";
  int status = 0;
  if (strcmp(mode, "--help") == 0 || strcmp(mode, "-h") == 0) {
    if (world_rank == 0) usage(stdout);
  } else if (argc < 2 || mode[0] == '-') {
    if (world_rank == 0) usage(stderr);
    status = 2;
  } else {
    status = parse_options(argc, argv, 2, &opt);
  }
  if (status == 0 && argc >= 2 && mode[0] != '-') {
    typedef int (*Step)(const Options*);
    static const struct {
      const char* name;
      Step step;
      int in_all;
    } steps[] = {{"placement", run_placement, 1},
                 {"pingpong", run_pingpong, 1},
                 {"incast", run_incast, 1},
                 {"bcast", run_bcast, 1},
                 {"verify", run_verify, 0}};
    const size_t n_steps = sizeof steps / sizeof steps[0];
    /* a comma-separated list of modes, run in the order given */
    for (const char* word = mode; *word != '\0' && status != 2;) {
      size_t len = strcspn(word, ",");
      int all = len == 3 && strncmp(word, "all", 3) == 0, known = all;
      for (size_t i = 0; i < n_steps && status != 2; ++i) {
        if (all ? !steps[i].in_all
                : strlen(steps[i].name) != len || strncmp(word, steps[i].name, len) != 0)
          continue;
        known = 1;
        int result = steps[i].step(&opt);
        status = result == 2 ? 2 : (status | result);
      }
      if (!known) {
        if (world_rank == 0) {
          fprintf(stderr, "cluster_check: unknown mode '%.*s'\n", (int)len, word);
          usage(stderr);
        }
        status = 2;
      }
      word += len;
      if (*word == ',') ++word;
    }
  }
  fflush(stdout);
  MPI_Finalize();
  return status;
}
