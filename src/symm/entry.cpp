// The C entry points of relay/symm.h: the mesh, and relay_symm_square_cube's checks (in
// argument order, on every process), the processes' agreement on them (a bad argument on any
// process fails the call on all instead of hanging the others), the symmetry check, then the
// algorithms (square_cube.cpp).
#include <mpi.h>

#include <cstddef>
#include <limits>
#include <string>

#include "api/checks.hpp"
#include "core/sized_struct.hpp"
#include "core/status.hpp"
#include "overlap/dup_comms.hpp"
#include "relay/overlap.h"
#include "relay/symm.h"
#include "symm/mesh.hpp"
#include "symm/square_cube.hpp"

using relay::core::fail;

namespace {

constexpr const char* kFn = "relay_symm_square_cube";

relay_symm_options_t default_options() {
  relay_symm_options_t o{};
  o.struct_size = sizeof o;
  o.algorithm = RELAY_SYMM_DEFAULT;
  o.n_dup = 0;
  o.check_symmetry = 1;
  return o;
}

// The first layout of relay_symm_options_t (relay 0.1, up to parts_in_flight): the least
// struct_size accepted.
constexpr std::size_t kFirstOptionsBytes = offsetof(relay_symm_options_t, allreduce);

// This process's checks of one call, in argument order; fills `call` as it goes.
relay_status_t check_local(relay_mesh_t mesh, long long n, MPI_Datatype datatype, const void* d,
                           long long ldd, void* d2, long long ldd2, void* d3, long long ldd3,
                           const relay_symm_options_t* options, relay::symm::Call& call) {
  call.mesh = mesh;
  if (n < 0) return fail(RELAY_ERR_COUNT, "{}: argument 2 (n = {}) is negative", kFn, n);
  const std::int64_t side = relay::symm::buffer_side(n, mesh->p);
  if (side * side > std::numeric_limits<int>::max()) {
    return fail(RELAY_ERR_COUNT,
                "{}: argument 2 (n = {}) makes blocks of {} x {} elements on a {}^3 mesh, more "
                "than one message can count (2^31 - 1): use a larger mesh",
                kFn, n, side, side, mesh->p);
  }
  call.n = n;
  if (datatype != MPI_DOUBLE && datatype != MPI_FLOAT) {
    return fail(RELAY_ERR_DATATYPE, "{}: argument 3 (datatype) is not MPI_DOUBLE or MPI_FLOAT",
                kFn);
  }
  call.single = datatype == MPI_FLOAT;
  if (mesh->k == 0) {
    const long long rows = relay::symm::block_range(n, mesh->p, mesh->i).size;
    const long long cols = relay::symm::block_range(n, mesh->p, mesh->j).size;
    const bool data = rows > 0 && cols > 0;
    const long long least = rows > 1 ? rows : 1;
    struct Matrix {
      const void* data;
      long long ld;
      const char* name;
      int position;
    };
    for (const Matrix& x :
         {Matrix{d, ldd, "d", 4}, Matrix{d2, ldd2, "d2", 6}, Matrix{d3, ldd3, "d3", 8}}) {
      if (x.data == nullptr && data) {
        return fail(RELAY_ERR_BUFFER,
                    "{}: argument {} ({}) is NULL on process ({}, {}, 0), which holds a {} x {} "
                    "block",
                    kFn, x.position, x.name, mesh->i, mesh->j, rows, cols);
      }
      if (x.ld < least) {
        return fail(RELAY_ERR_ARGUMENT,
                    "{}: argument {} (ld{} = {}) is less than the block's {} rows on process "
                    "({}, {}, 0)",
                    kFn, x.position + 1, x.name + 1, x.ld, least, mesh->i, mesh->j);
      }
    }
    if (data && d2 == d3) {
      return fail(RELAY_ERR_BUFFER, "{}: argument 8 (d3) is the same array as argument 6 (d2)",
                  kFn);
    }
    call.d = d;
    call.ldd = ldd;
    call.d2 = d2;
    call.ldd2 = ldd2;
    call.d3 = d3;
    call.ldd3 = ldd3;
  }
  relay_symm_options_t o = default_options();
  if (options != nullptr) {
    std::string why;
    if (!relay::core::copy_sized_struct(options, o, kFirstOptionsBytes, why)) {
      return fail(RELAY_ERR_OPTIONS, "{}: argument 10 (options->struct_size = {}) {}", kFn,
                  relay::core::stored_struct_size(options), why);
    }
  }
  if (o.algorithm == RELAY_SYMM_DEFAULT) o.algorithm = RELAY_SYMM_OVERLAP;
  if (o.algorithm != RELAY_SYMM_BASELINE && o.algorithm != RELAY_SYMM_OVERLAP &&
      o.algorithm != RELAY_SYMM_CANNON) {
    return fail(RELAY_ERR_ALGORITHM,
                "{}: argument 10 (options->algorithm = {}) is not a relay_symm_algorithm_t", kFn,
                o.algorithm);
  }
  if (o.algorithm == RELAY_SYMM_CANNON && mesh->p % mesh->layers != 0) {
    return fail(RELAY_ERR_ALGORITHM,
                "{}: argument 10 (options->algorithm = cannon) needs the layers c to divide the "
                "layer's side q (q / c Cannon steps per layer); the mesh is {} x {} x {}",
                kFn, mesh->p, mesh->p, mesh->layers);
  }
  if (o.algorithm != RELAY_SYMM_CANNON && mesh->layers != mesh->p) {
    return fail(RELAY_ERR_ALGORITHM,
                "{}: argument 10 (options->algorithm = {}) needs a p x p x p mesh; the mesh is "
                "{} x {} x {} (relay_mesh_create_layered): use cannon",
                kFn, o.algorithm == RELAY_SYMM_BASELINE ? "baseline" : "overlap", mesh->p, mesh->p,
                mesh->layers);
  }
  if (o.n_dup == 0) o.n_dup = 4;
  if (o.n_dup < 1 || o.n_dup > RELAY_OVERLAP_MAX_DUP) {
    return fail(RELAY_ERR_NDUP, "{}: argument 10 (options->n_dup = {}) is outside 1..{}", kFn,
                o.n_dup, RELAY_OVERLAP_MAX_DUP);
  }
  if (o.parts_in_flight < 0) {
    return fail(RELAY_ERR_OPTIONS, "{}: argument 10 (options->parts_in_flight = {}) is negative",
                kFn, o.parts_in_flight);
  }
  if (o.parts_in_flight == 0) o.parts_in_flight = 2;
  if (o.check_symmetry != 0 && o.check_symmetry != 1) {
    return fail(RELAY_ERR_OPTIONS, "{}: argument 10 (options->check_symmetry = {}) is not 0 or 1",
                kFn, o.check_symmetry);
  }
  // The collectives' options must suit every part size (the largest and the smallest, which
  // differ by one element at most), checked here so that no process posts a part the others
  // refuse.
  const int count = static_cast<int>(side * side);
  const int parts = o.algorithm == RELAY_SYMM_BASELINE ? 1 : o.n_dup;
  for (int part_count : {count / parts + (count % parts != 0 ? 1 : 0), count / parts}) {
    if (part_count == 0) continue;
    if (o.algorithm == RELAY_SYMM_CANNON) {  // Algorithm 6's D^2: an allreduce down the fibers
      if (auto st = relay_coll_describe(RELAY_COLL_ALLREDUCE, part_count, datatype, MPI_SUM, 0,
                                        mesh->fiber, o.allreduce, nullptr, 0);
          st != RELAY_SUCCESS) {
        return fail(st, "{}: argument 10 (options->allreduce): {}", kFn,
                    std::string(relay_last_error()));
      }
    }
    if (auto st = relay_bcast_describe(part_count, datatype, 0, mesh->row, o.bcast, nullptr, 0);
        st != RELAY_SUCCESS) {
      return fail(st, "{}: argument 10 (options->bcast): {}", kFn, std::string(relay_last_error()));
    }
    if (auto st = relay_coll_describe(RELAY_COLL_REDUCE, part_count, datatype, MPI_SUM, 0,
                                      mesh->col, o.reduce, nullptr, 0);
        st != RELAY_SUCCESS) {
      return fail(st, "{}: argument 10 (options->reduce): {}", kFn,
                  std::string(relay_last_error()));
    }
  }
  call.algorithm = o.algorithm;
  call.n_dup = o.n_dup;
  call.bcast = o.bcast;
  call.reduce = o.reduce;
  call.allreduce = o.allreduce;
  call.check_symmetry = o.check_symmetry == 1;
  call.parts_in_flight = o.parts_in_flight;  // this process's sends only: not agreed
  return RELAY_SUCCESS;
}

}  // namespace

extern "C" {

relay_status_t relay_mesh_create(MPI_Comm comm, int p, relay_mesh_t* mesh) {
  const char* fn = "relay_mesh_create";
  if (mesh == nullptr) return fail(RELAY_ERR_OPTIONS, "{}: argument 3 (mesh) is NULL", fn);
  *mesh = RELAY_MESH_NULL;
  if (auto st = relay::api::check_mpi(fn); st != RELAY_SUCCESS) return st;
  int size = 0, rank = 0;
  if (auto st = relay::api::check_comm(fn, 1, comm, size, rank); st != RELAY_SUCCESS) return st;
  if (p < 0) return fail(RELAY_ERR_COUNT, "{}: argument 2 (p = {}) is negative", fn, p);
  const int side = p == 0 ? relay::symm::exact_cube_root(size) : p;
  if (side == 0 || static_cast<long long>(side) * side * side != size) {
    if (p == 0) {
      return fail(RELAY_ERR_COUNT,
                  "{}: the communicator's {} processes are not a cube (p x p x p: 1, 8, 27, 64, "
                  "...)",
                  fn, size);
    }
    return fail(RELAY_ERR_COUNT,
                "{}: argument 2 (p = {}) needs {} processes, the communicator "
                "has {}",
                fn, p, static_cast<long long>(p) * p * p, size);
  }
  std::string error;
  if (auto st = relay::symm::create_mesh(comm, side, side, mesh, error); st != RELAY_SUCCESS) {
    return fail(st, "{}: {}", fn, error);
  }
  return RELAY_SUCCESS;
}

relay_status_t relay_mesh_create_layered(MPI_Comm comm, int q, int c, relay_mesh_t* mesh) {
  const char* fn = "relay_mesh_create_layered";
  if (mesh == nullptr) return fail(RELAY_ERR_OPTIONS, "{}: argument 4 (mesh) is NULL", fn);
  *mesh = RELAY_MESH_NULL;
  if (auto st = relay::api::check_mpi(fn); st != RELAY_SUCCESS) return st;
  int size = 0, rank = 0;
  if (auto st = relay::api::check_comm(fn, 1, comm, size, rank); st != RELAY_SUCCESS) return st;
  if (q < 1) return fail(RELAY_ERR_COUNT, "{}: argument 2 (q = {}) is not positive", fn, q);
  if (c < 1) return fail(RELAY_ERR_COUNT, "{}: argument 3 (c = {}) is not positive", fn, c);
  if (static_cast<long long>(q) * q * c != size) {
    return fail(RELAY_ERR_COUNT,
                "{}: a {} x {} x {} mesh needs {} processes, the communicator has {}", fn, q, q, c,
                static_cast<long long>(q) * q * c, size);
  }
  std::string error;
  if (auto st = relay::symm::create_mesh(comm, q, c, mesh, error); st != RELAY_SUCCESS) {
    return fail(st, "{}: {}", fn, error);
  }
  return RELAY_SUCCESS;
}

relay_status_t relay_mesh_layers(relay_mesh_t mesh, int* c) {
  if (mesh == RELAY_MESH_NULL) {
    return fail(RELAY_ERR_COMM, "relay_mesh_layers: argument 1 (mesh) is NULL");
  }
  if (c) *c = mesh->layers;
  return RELAY_SUCCESS;
}

relay_status_t relay_mesh_free(relay_mesh_t* mesh) {
  if (mesh == nullptr) return fail(RELAY_ERR_OPTIONS, "relay_mesh_free: argument 1 is NULL");
  relay::symm::free_mesh(*mesh);
  *mesh = RELAY_MESH_NULL;
  return RELAY_SUCCESS;
}

relay_status_t relay_mesh_info(relay_mesh_t mesh, int* p, int* i, int* j, int* k) {
  if (mesh == RELAY_MESH_NULL) {
    return fail(RELAY_ERR_COMM, "relay_mesh_info: argument 1 (mesh) is NULL");
  }
  if (p) *p = mesh->p;
  if (i) *i = mesh->i;
  if (j) *j = mesh->j;
  if (k) *k = mesh->k;
  return RELAY_SUCCESS;
}

relay_status_t relay_mesh_block(long long n, int p, int index, long long* first, long long* size) {
  const char* fn = "relay_mesh_block";
  if (n < 0) return fail(RELAY_ERR_COUNT, "{}: argument 1 (n = {}) is negative", fn, n);
  if (p < 1) return fail(RELAY_ERR_COUNT, "{}: argument 2 (p = {}) < 1", fn, p);
  if (index < 0 || index >= p) {
    return fail(RELAY_ERR_COUNT, "{}: argument 3 (index = {}) is outside 0..{}", fn, index, p - 1);
  }
  const relay::symm::BlockRange r = relay::symm::block_range(n, p, index);
  if (first) *first = r.first;
  if (size) *size = r.size;
  return RELAY_SUCCESS;
}

void relay_symm_options_init_sized(relay_symm_options_t* options, size_t struct_size) {
  relay::core::init_sized_struct(options, struct_size, default_options());
}

relay_status_t relay_symm_algorithm_from_name(const char* name, relay_symm_algorithm_t* algorithm) {
  const char* fn = "relay_symm_algorithm_from_name";
  if (name == nullptr || algorithm == nullptr) {
    return fail(RELAY_ERR_OPTIONS, "{}: an argument is NULL", fn);
  }
  const std::string s = name;
  if (s == "default") {
    *algorithm = RELAY_SYMM_DEFAULT;
  } else if (s == "baseline") {
    *algorithm = RELAY_SYMM_BASELINE;
  } else if (s == "overlap") {
    *algorithm = RELAY_SYMM_OVERLAP;
  } else if (s == "cannon") {
    *algorithm = RELAY_SYMM_CANNON;
  } else {
    return fail(RELAY_ERR_ALGORITHM, "{}: '{}' is not default, baseline, overlap or cannon", fn, s);
  }
  return RELAY_SUCCESS;
}

relay_status_t relay_symm_square_cube(relay_mesh_t mesh, long long n, MPI_Datatype datatype,
                                      const void* d, long long ldd, void* d2, long long ldd2,
                                      void* d3, long long ldd3, const relay_symm_options_t* options,
                                      relay_symm_stats_t* stats) {
  const double t0 = MPI_Wtime();
  relay_symm_stats_t s{};
  if (auto st = relay::api::check_mpi(kFn); st != RELAY_SUCCESS) return st;
  if (mesh == RELAY_MESH_NULL) return fail(RELAY_ERR_COMM, "{}: argument 1 (mesh) is NULL", kFn);
  relay::symm::Call call;
  const relay_status_t local =
      check_local(mesh, n, datatype, d, ldd, d2, ldd2, d3, ldd3, options, call);
  // Every process must run the same call: n, the type, the algorithm and its parts.
  const long long values[] = {n, call.single ? 1 : 0, call.algorithm, call.n_dup,
                              call.check_symmetry ? 1 : 0};
  const char* const names[] = {"n (argument 2)", "datatype (argument 3)", "options->algorithm",
                               "options->n_dup", "options->check_symmetry"};
  if (auto st = relay::api::agree(kFn, mesh->comm, local, values, names, 5); st != RELAY_SUCCESS) {
    return st;
  }
  if (n == 0) {
    if (stats) *stats = s;
    return RELAY_SUCCESS;
  }
  std::string error;
  if (call.check_symmetry) {
    double ratio = 0;
    int bi = 0, bj = 0;
    if (auto st = relay::symm::symmetry_error(call, &ratio, &bi, &bj, error); st != RELAY_SUCCESS) {
      return fail(st, "{}: {}", kFn, error);
    }
    if (ratio > 1.0) {
      return fail(RELAY_ERR_ARGUMENT,
                  "{}: argument 4 (d) is not symmetric: block ({}, {}) and block ({}, {}) "
                  "transposed differ {:.3g} times the rounding tolerance on a random "
                  "projection (options->check_symmetry = 0 skips this check)",
                  kFn, bi, bj, bj, bi, ratio);
    }
  }
  s.check_s = MPI_Wtime() - t0;
  if (auto st = relay::symm::square_cube(call, s, error); st != RELAY_SUCCESS) {
    if (!error.empty()) return fail(st, "{}: {}", kFn, error);
    return st;  // a collective's own message (relay_last_error) stands
  }
  s.total_s = MPI_Wtime() - t0;
  if (stats) *stats = s;
  return RELAY_SUCCESS;
}

}  // extern "C"
