// Checks every command shares, made before anything runs (issue 23: never a wrong answer, a
// crash or a hang): floating-point options that are finite and in range, result files in
// directories that exist, buffers that fit in the node's memory.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <limits>
#include <string>
#include "cli/cli11.hpp"

namespace relay::cli {

/// A validator for a floating-point option: a finite number in [min, max]. nan, inf and
/// numbers out of range are refused with a usage error naming the option (CLI::Range lets nan
/// through: every comparison with nan is false).
CLI::Validator finite_in(double min, double max = std::numeric_limits<double>::infinity());

/// A validator for a file a command writes (--json, --plot, --output): its directory must
/// exist and be writable, and it must not be a directory itself. relay never creates
/// directories (as root it once made a top-level one from a typo). Every rank checks, though
/// rank 0 alone writes: on a shared file system they then all refuse together, before MPI
/// starts, whatever the launcher does with ranks that exit early.
CLI::Validator output_file();

/// --max-requests (the API's and the JSON's max_requests: requests in flight per rank), in
/// 1..max, into `max_requests`; and --window, its former name, hidden, which still works and
/// says on stderr that it is deprecated.
void add_max_requests_option(CLI::App* cmd, int& max_requests, int max, const std::string& help);

/// Adds to every option of `app` and of its subcommands, recursively: finite_in(0) to each
/// floating-point option (none of relay's takes nan, inf or a negative number), and
/// output_file() to each named --json, --plot, --output, --openmpi or --mpich. main calls it
/// once every command is registered, so that no command, present or future, misses them.
void add_shared_checks(CLI::App& app);

/// "512 B", "64.0 KiB", "1.5 GiB".
std::string human_bytes(double bytes);

/// Before a command allocates its buffers: `bytes` is what this rank is about to allocate,
/// for `what` (said in the message). The ranks sharing a node's memory (MPI_COMM_TYPE_SHARED)
/// must fit in what the node has available, together. Collective over comm: when some node
/// lacks the memory, every rank throws the same AgreedError naming the node, the need per rank
/// and what is available, so that nothing is allocated, nothing crashes and no rank waits for
/// another.
void require_memory(MPI_Comm comm, double bytes, const std::string& what);

}  // namespace relay::cli
