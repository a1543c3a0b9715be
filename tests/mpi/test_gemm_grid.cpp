// gemm::grid_of_comm, the grid librelay_scalapack keeps on a BLACS context's communicator (an
// exec::CommAttribute): the same grid while the shape stays, a new one when it changes (the old
// one's communicators freed at once), and freed with the communicator; and the attribute's
// remove, which the rebuild uses. A file of its own:
// namespace relay::gemm (the engine's) and the function relay::gemm (relay/gemm.hpp) cannot
// meet in one translation unit.
#include <gtest/gtest.h>
#include <mpi.h>

#include <string>

#include "exec/comm_attribute.hpp"
#include "gemm/grid.hpp"

namespace {

int g_comms_freed = 0;

int count_free(MPI_Comm, int, void*, void*) {
  ++g_comms_freed;
  return MPI_SUCCESS;
}

void watch_comms(const relay_grid& g, int keyval) {
  for (MPI_Comm c : {g.comm, g.row_comm, g.col_comm}) MPI_Comm_set_attr(c, keyval, nullptr);
}

TEST(Gemm, GridOfCommFollowsTheShapeAndIsFreedWithTheComm) {
  int size = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (size < 2) GTEST_SKIP() << "a change of shape needs 2 ranks";
  int keyval = MPI_KEYVAL_INVALID;
  ASSERT_EQ(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, count_free, &keyval, nullptr),
            MPI_SUCCESS);
  g_comms_freed = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  std::string error;
  relay_grid* wide = nullptr;
  ASSERT_EQ(relay::gemm::grid_of_comm(comm, 1, size, &wide, error), RELAY_SUCCESS) << error;
  watch_comms(*wide, keyval);
  relay_grid* again = nullptr;
  ASSERT_EQ(relay::gemm::grid_of_comm(comm, 1, size, &again, error), RELAY_SUCCESS) << error;
  EXPECT_EQ(again, wide);
  EXPECT_EQ(g_comms_freed, 0);

  relay_grid* tall = nullptr;
  ASSERT_EQ(relay::gemm::grid_of_comm(comm, size, 1, &tall, error), RELAY_SUCCESS) << error;
  EXPECT_EQ(g_comms_freed, 3);  // the 1 x size grid's, before the new ones
  EXPECT_EQ(tall->shape.rows, size);
  EXPECT_EQ(tall->shape.cols, 1);
  EXPECT_EQ(tall->me.row, rank);
  EXPECT_EQ(tall->me.col, 0);
  watch_comms(*tall, keyval);
  MPI_Comm_free(&comm);
  EXPECT_EQ(g_comms_freed, 6);  // and the size x 1 grid's with comm

  // A shape that does not fit the communicator: the same error as relay_grid_create's.
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  relay_grid* none = nullptr;
  EXPECT_EQ(relay::gemm::grid_of_comm(comm, size + 1, 1, &none, error), RELAY_ERR_COMM);
  EXPECT_EQ(none, nullptr);
  EXPECT_NE(error.find("the communicator has " + std::to_string(size)), std::string::npos) << error;
  MPI_Comm_free(&comm);
  MPI_Comm_free_keyval(&keyval);
}

int g_values_freed = 0;

void free_value(void* value) {
  ++g_values_freed;
  delete static_cast<int*>(value);
}

TEST(CommAttribute, RemoveFreesTheValueAtOnceAndDoesNothingWithoutOne) {
  static relay::exec::CommAttribute attribute(free_value);  // MPI_Finalize calls back into it
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  std::string error;
  EXPECT_EQ(attribute.remove(comm, error), RELAY_SUCCESS) << error;
  EXPECT_EQ(g_values_freed, 0);
  ASSERT_EQ(attribute.set(comm, new int(1), error), RELAY_SUCCESS) << error;
  EXPECT_EQ(attribute.remove(comm, error), RELAY_SUCCESS) << error;
  EXPECT_EQ(g_values_freed, 1);
  void* value = &error;
  EXPECT_EQ(attribute.get(comm, &value, error), RELAY_SUCCESS) << error;
  EXPECT_EQ(value, nullptr);
  ASSERT_EQ(attribute.set(comm, new int(2), error), RELAY_SUCCESS) << error;
  MPI_Comm_free(&comm);
  EXPECT_EQ(g_values_freed, 2);
}

}  // namespace
