// SimGrid SMPI: computations are charged to the simulated clock unless the run asks for real
// ones (exec/compute.hpp). Read on every call: cheap next to the multiplication it replaces.
#include <simgrid/actor.h>
#include <simgrid/host.h>
#include <smpi/smpi.h>
#include <xbt/sysdep.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/settings.hpp"
#include "exec/compute.hpp"

namespace relay::exec {

namespace {

// When every simulated rank waits for a message that will never come, SimGrid prints its
// deadlock report, ends the simulation and exits with status 0, as if the program had run:
// `relay simulate` then printed no result and said "exit status 0", and a simulated test that
// deadlocked passed. Registered once, by a static initializer, before any simulated rank runs
// (with --privatization dlopen once per rank's copy: the first to run exits).
[[maybe_unused]] const bool g_deadlock_fails = [] {
  simgrid::s4u::Engine::on_deadlock_cb([] {
    std::fflush(nullptr);
    std::fprintf(stderr,
                 "relay: the simulated ranks deadlocked (SimGrid's report above): no result. "
                 "Please report it with the command line: relay's schedules complete on every "
                 "MPI, so this is a defect of relay's or of SMPI's.\n");
    std::_Exit(1);
  });
  return true;
}();

}  // namespace

int rank_key() { return static_cast<int>(sg_actor_self_get_pid()); }

bool compute_is_charged() {
  const char* mode = core::read_setting(core::Knob::simulate_compute);
  return mode == nullptr || std::strcmp(mode, "real") != 0;
}

bool compute_is_timed() { return compute_is_charged(); }

bool scratch_is_shared() {
  const char* mode = core::read_setting(core::Knob::simulate_compute);
  return mode != nullptr && std::strcmp(mode, "timing") == 0;
}

void* allocate_scratch(std::size_t bytes) {
  return scratch_is_shared() ? allocate_data(bytes) : ::operator new(bytes);
}

void free_scratch(void* data, std::size_t bytes) noexcept {
  if (scratch_is_shared()) {
    free_data(data, bytes);
  } else {
    ::operator delete(data);
  }
}

namespace {
// RELAY_SIMULATE_GFLOPS, or 0 when unset (then the platform host's speed applies).
double given_gflops() {
  const char* rate = core::read_setting(core::Knob::simulate_gflops);
  return rate != nullptr ? std::max(0.0, std::atof(rate)) : 0.0;
}
}  // namespace

void charge_flops(double flops) {
  if (!compute_is_charged() || flops <= 0) return;
  if (const double gflops = given_gflops(); gflops > 0) {
    // As many of this host's flops as take the time `flops` take at the given rate.
    // (smpi_execute(seconds) would scale by smpi/host-speed, 20,000 flop/s by default: it
    // charged next to nothing, and RELAY_SIMULATE_GFLOPS did not slow a rank at all.)
    const double seconds = flops / (gflops * 1e9);
    smpi_execute_flops(seconds * sg_host_get_speed(sg_host_self()));
  } else {
    smpi_execute_flops(flops);  // at the speed the platform gives this rank's host
  }
}

double charged_gflops() {
  if (!compute_is_charged()) return 0.0;
  const double gflops = given_gflops();
  return gflops > 0 ? gflops : sg_host_get_speed(sg_host_self()) / 1e9;
}

int host_cores() { return sg_host_core_count(sg_host_self()); }
bool machine_cpu_ticks(unsigned long long& /*busy*/, unsigned long long& /*total*/) {
  return false;  // the host's /proc/stat says nothing about the simulated one
}

std::string machine_id() { return sg_host_get_name(sg_host_self()); }

int dup_comm(MPI_Comm comm, MPI_Comm* copy) {
  MPI_Group group = MPI_GROUP_NULL;
  int rc = MPI_Comm_group(comm, &group);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_create(comm, group, copy);
  if (group != MPI_GROUP_NULL) MPI_Group_free(&group);
  return rc;
}

namespace {
// What one poll costs the simulated clock: smpi/test (relay simulate --test-cost-us).
double test_cost_s() { return simgrid::config::get_value<double>("smpi/test"); }

// This rank's poll marker (below): a zero-byte message to itself on MPI_COMM_SELF, which relay
// uses for nothing else. Kept per rank (rank_local): without SMPI's privatization the
// simulated ranks share every global.
constexpr int kPollMarkerTag = 32766;
struct PollState {
  MPI_Request marker = MPI_REQUEST_NULL;
  char marker_in = 0;
  char marker_out = 0;
  int self_route_known = -1;  // -1: not looked up yet
};

// Whether a message from this rank's host to itself has a route: SimGrid's torus zones have
// none unless the platform gives the cluster a loopback (the shipped ones do).
bool has_self_route(PollState& me) {
  int& self_route_known = me.self_route_known;
  if (self_route_known < 0) {
    std::vector<simgrid::s4u::Link*> links;
    double latency_s = 0;
    const simgrid::s4u::Host* host = simgrid::s4u::Host::current();
    host->route_to(host, links, &latency_s);
    self_route_known = !links.empty() || latency_s > 0 ? 1 : 0;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (self_route_known == 0 && rank == 0) {
      std::fprintf(stderr,
                   "relay: the platform has no route from host %s to itself: polls use SMPI's "
                   "MPI_Testany, whose host time grows as the square of the messages polled; give "
                   "the cluster loopback_bw and loopback_lat (docs/simulate.md, \"Polls\")\n",
                   host->get_cname());
    }
  }
  return self_route_known == 1;
}

// Posts the next poll's marker: it arrives after the self route's latency (1-2 us on the
// shipped platforms but gige64's 50 us), before the next poll when a computation separates them.
int post_poll_marker(PollState& me) {
  int rc = MPI_Irecv(&me.marker_in, 0, MPI_BYTE, 0, kPollMarkerTag, MPI_COMM_SELF, &me.marker);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Request send = MPI_REQUEST_NULL;
  rc = MPI_Isend(&me.marker_out, 0, MPI_BYTE, 0, kPollMarkerTag, MPI_COMM_SELF, &send);
  // Below SMPI's detached-send threshold: complete at once.
  return rc == MPI_SUCCESS ? MPI_Wait(&send, MPI_STATUS_IGNORE) : rc;
}

// The poll of platforms without a route to self: MPI_Testany until it finds nothing (SMPI
// charges n test costs at the n-th miss in a row), then MPI_Testsome for what MPI_Testany
// cannot see (a detached small send, already complete), one more test cost per request left.
int test_some_by_testany(int count, MPI_Request* requests, int* done, int* indices,
                         MPI_Status* statuses) {
  for (;;) {
    int index = MPI_UNDEFINED, flag = 0;
    MPI_Status status;
    if (const int rc = MPI_Testany(count, requests, &index, &flag, &status); rc != MPI_SUCCESS) {
      return rc;
    }
    if (flag == 0) return MPI_SUCCESS;
    if (index == MPI_UNDEFINED) break;
    indices[*done] = index;
    if (statuses != MPI_STATUSES_IGNORE) statuses[*done] = status;
    ++*done;
  }
  if (std::none_of(requests, requests + count,
                   [](MPI_Request r) { return r != MPI_REQUEST_NULL; })) {
    return MPI_SUCCESS;
  }
  int more = 0;
  const int rc = MPI_Testsome(count, requests, &more, indices + *done,
                              statuses != MPI_STATUSES_IGNORE ? statuses + *done : statuses);
  if (rc == MPI_SUCCESS && more != MPI_UNDEFINED) *done += more;
  return rc;
}
}  // namespace

// A poll completes requests through MPI_Waitany, not MPI_Test: SimGrid 3.32 keeps every
// communication a test completed in the rank's list of activities until the rank exits, and
// scans that list each time one of the rank's computations or waits ends (ExecImpl::post,
// CommImpl::finish). A look-ahead GEMM polls between pieces of its multiplication, so host
// time grew as the square of its messages: 72-75% of a 64-rank tan2014 run at n = 17920 went
// to that scan (perf), and 20,000 polled 1 MiB messages between two ranks took 13.7 s of host
// time against 0.8 s waited (docs/simulate.md). MPI_Waitany returns the requests already
// complete first, in order, then the marker, listed last, which the previous poll posted: a
// poll after a computation returns at once, one right after another waits at most the self
// route's latency for something to complete. Each MPI_Waitany is charged one test cost, as
// SMPI charges each MPI_Testany; its own MPI_Testany charges n times the cost at the n-th miss
// in a row, n counted across all ranks whatever smpi/grow-injected-times says.
int test_some(int count, MPI_Request* requests, int* done, int* indices, MPI_Status* statuses) {
  *done = 0;
  if (std::none_of(requests, requests + count,
                   [](MPI_Request r) { return r != MPI_REQUEST_NULL; })) {
    *done = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  PollState& me = rank_local<PollState>();
  if (!has_self_route(me)) return test_some_by_testany(count, requests, done, indices, statuses);
  int rc = me.marker == MPI_REQUEST_NULL ? post_poll_marker(me) : MPI_SUCCESS;
  std::vector<MPI_Request> polled(requests, requests + count);
  polled.push_back(me.marker);
  const double cost_s = test_cost_s();
  while (rc == MPI_SUCCESS) {
    if (cost_s > 0) simgrid::s4u::this_actor::sleep_for(cost_s);
    int index = MPI_UNDEFINED;
    MPI_Status status;
    rc = MPI_Waitany(count + 1, polled.data(), &index, &status);
    if (rc != MPI_SUCCESS || index == MPI_UNDEFINED) break;
    if (index == count) {  // the marker: nothing else is complete
      me.marker = MPI_REQUEST_NULL;
      rc = post_poll_marker(me);
      break;
    }
    requests[index] = polled[static_cast<std::size_t>(index)];  // MPI_REQUEST_NULL now
    indices[*done] = index;
    if (statuses != MPI_STATUSES_IGNORE) statuses[*done] = status;
    ++*done;
  }
  return rc;
}

int test_one(MPI_Request* request, int* flag, MPI_Status* status) {
  if (*request == MPI_REQUEST_NULL) {
    *flag = 1;
    return MPI_Test(request, flag, status);  // an empty status, as MPI_Test gives
  }
  int done = 0, index = 0;
  const int rc = test_some(1, request, &done, &index,
                           status == MPI_STATUS_IGNORE ? MPI_STATUSES_IGNORE : status);
  *flag = done == 1 ? 1 : 0;
  return rc;
}

bool waits_see_collectives() { return false; }

int wire_tag(int tag, std::int64_t bytes) {
  // Read once: the same for every simulated rank (SMPI's configuration is the process's).
  static const int small_below = simgrid::config::get_value<int>("smpi/async-small-thresh");
  constexpr int kLargeTagOffset = 1 << 24;
  return small_below > 0 && bytes >= small_below ? tag + kLargeTagOffset : tag;
}

int wait_some(int count, MPI_Request* requests, int* done, int* indices, MPI_Status* statuses) {
  int index = MPI_UNDEFINED;
  const int rc = MPI_Waitany(count, requests, &index,
                             statuses != MPI_STATUSES_IGNORE ? statuses : MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return rc;
  *done = index == MPI_UNDEFINED ? MPI_UNDEFINED : 1;
  if (index != MPI_UNDEFINED) indices[0] = index;
  return MPI_SUCCESS;
}

int allreduce(const void* send, void* recv, int count, MPI_Datatype type, MPI_Op op,
              MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // SMPI 3.32's MPI_Reduce on a communicator of one rank sends to a parent that does not exist
  // (the program aborts); its MPI_Allreduce there sends nothing.
  if (size == 1) return MPI_Allreduce(send, recv, count, type, op, comm);
  // MPI_IN_PLACE: the root reduces into recv in place, the others send what recv holds.
  const void* in = send == MPI_IN_PLACE && rank != 0 ? recv : send;
  if (const int rc = MPI_Reduce(in, rank == 0 ? recv : nullptr, count, type, op, 0, comm);
      rc != MPI_SUCCESS) {
    return rc;
  }
  return MPI_Bcast(recv, count, type, 0, comm);
}

int node_comm(MPI_Comm comm, MPI_Comm* node) {
  *node = MPI_COMM_NULL;
  int world_rank = 0, world_size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  // smpirun starts world rank r as the actor of pid r + 1; the ranks on this host are then its
  // actors' pids - 1. Checked on every rank of comm (one small allreduce), else the split.
  int mapped = sg_actor_self_get_pid() == world_rank + 1 ? 1 : 0;
  std::vector<int> world_members;
  for (const auto& actor : simgrid::s4u::Host::current()->get_all_actors()) {
    const auto r = actor->get_pid() - 1;
    if (r < 0 || r >= world_size) {
      mapped = 0;
      break;
    }
    world_members.push_back(static_cast<int>(r));
  }
  int all_mapped = 0;
  if (const int rc = allreduce(&mapped, &all_mapped, 1, MPI_INT, MPI_MIN, comm);
      rc != MPI_SUCCESS) {
    return rc;
  }
  if (all_mapped == 0) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    return MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
  }
  // The host's ranks that are in comm, as comm's ranks, in comm's order.
  MPI_Group world = MPI_GROUP_NULL, group = MPI_GROUP_NULL, members = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Comm_group(comm, &group);
  std::vector<int> in_comm(world_members.size(), MPI_UNDEFINED);
  int rc = MPI_Group_translate_ranks(world, static_cast<int>(world_members.size()),
                                     world_members.data(), group, in_comm.data());
  in_comm.erase(std::remove(in_comm.begin(), in_comm.end(), MPI_UNDEFINED), in_comm.end());
  std::sort(in_comm.begin(), in_comm.end());
  if (rc == MPI_SUCCESS) {
    rc = MPI_Group_incl(group, static_cast<int>(in_comm.size()), in_comm.data(), &members);
  }
  // Only the node's ranks take part: no message crosses the rest of comm.
  if (rc == MPI_SUCCESS) rc = MPI_Comm_create_group(comm, members, 0, node);
  if (members != MPI_GROUP_NULL) MPI_Group_free(&members);
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  return rc;
}

MPI_Comm machine_comm(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  return node_comm(comm, &node) == MPI_SUCCESS ? node : MPI_COMM_NULL;
}

double link_bytes_per_s() {
  const sg_host_t self = sg_host_self();
  // Another rank's host, found from the ranks' actors (world rank r is the actor of pid r + 1,
  // as node_comm checks): sg_host_list sorts every host of the platform by name, and every
  // rank doing so costs P x P log P string comparisons over a run.
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (sg_actor_self_get_pid() == world_rank + 1) {
    // Ranks fill hosts in turn: past this host's own count of ranks is another host.
    const int steps = std::min<int>(
        world_size - 1, static_cast<int>(simgrid::s4u::Host::current()->get_actor_count()));
    for (int step = 1; step <= steps; ++step) {
      const auto other = simgrid::s4u::Actor::by_pid((world_rank + step) % world_size + 1);
      if (other != nullptr && other->get_host() != self) {
        return sg_host_get_route_bandwidth(self, other->get_host());
      }
    }
  }
  // Every rank on this host (or the actors numbered otherwise): any other host of the platform.
  const size_t count = sg_host_count();
  sg_host_t* hosts = sg_host_list();
  double rate = 0.0;
  for (size_t i = 0; i < count && rate == 0.0; ++i) {
    if (hosts[i] != self) rate = sg_host_get_route_bandwidth(self, hosts[i]);
  }
  xbt_free(hosts);
  return rate;
}

namespace {
// Below this, shared pages buy little memory and cost a mapping each (vm.max_map_count).
constexpr std::size_t kSharedFromBytes = 64 * 1024;
bool shared(std::size_t bytes) { return bytes >= kSharedFromBytes && compute_is_charged(); }
}  // namespace

void* allocate_data(std::size_t bytes) {
  if (!shared(bytes)) return ::operator new(bytes);
  void* p = SMPI_SHARED_MALLOC(bytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void free_data(void* data, std::size_t bytes) noexcept {
  if (data == nullptr) return;
  if (shared(bytes)) {
    SMPI_SHARED_FREE(data);
  } else {
    ::operator delete(data);
  }
}

}  // namespace relay::exec
