// Which MPI library relay was compiled for and which one this process runs: for relay
// --version, result files and the check that the two are of one family (api/checks.cpp).
#pragma once

#include <string>

namespace relay::core {

/// The first line of MPI_Get_library_version, trailing commas and spaces removed ("" if it
/// fails). Callable before MPI_Init.
std::string running_mpi_library();

/// The MPI library of the mpi.h relay was compiled with ("Open MPI 4.1.4", "MPICH 4.0.2"; empty
/// for others, such as SimGrid's SMPI).
std::string built_for_mpi_library();

}  // namespace relay::core
