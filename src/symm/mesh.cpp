#include "symm/mesh.hpp"

#include <algorithm>
#include <memory>

#include "exec/compute.hpp"

namespace relay::symm {

BlockRange block_range(std::int64_t n, int p, int index) {
  const std::int64_t base = n / p, extra = n % p;
  return {index * base + std::min<std::int64_t>(index, extra), base + (index < extra ? 1 : 0)};
}

int exact_cube_root(int size) {
  for (int p = 1; static_cast<std::int64_t>(p) * p * p <= size; ++p) {
    if (p * p * p == size) return p;
  }
  return 0;
}

relay_status_t create_mesh(MPI_Comm comm, int p, int layers, relay_mesh** out, std::string& error) {
  auto mesh = std::make_unique<relay_mesh>();
  mesh->p = p;
  mesh->layers = layers;
  if (exec::dup_comm(comm, &mesh->comm) != MPI_SUCCESS) {
    error = "MPI_Comm_dup failed";
    return RELAY_ERR_MPI;
  }
  int rank = 0;
  MPI_Comm_rank(mesh->comm, &rank);
  mesh->i = rank % p;
  mesh->j = rank / p % p;
  mesh->k = rank / (p * p);
  const int i = mesh->i, j = mesh->j, k = mesh->k;
  if (MPI_Comm_split(mesh->comm, j + p * k, i, &mesh->row) != MPI_SUCCESS ||
      MPI_Comm_split(mesh->comm, i + p * k, j, &mesh->col) != MPI_SUCCESS ||
      MPI_Comm_split(mesh->comm, i + p * j, k, &mesh->fiber) != MPI_SUCCESS) {
    free_mesh(mesh.release());
    error = "MPI_Comm_split failed";
    return RELAY_ERR_MPI;
  }
  *out = mesh.release();
  return RELAY_SUCCESS;
}

void free_mesh(relay_mesh* mesh) {
  if (mesh == nullptr) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) {
    for (MPI_Comm* c : {&mesh->row, &mesh->col, &mesh->fiber, &mesh->comm}) {
      if (*c != MPI_COMM_NULL) MPI_Comm_free(c);
    }
  }
  delete mesh;
}

}  // namespace relay::symm
