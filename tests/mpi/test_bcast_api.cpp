#include "mpi_test.hpp"
TEST(Placeholder, Nothing) {}
