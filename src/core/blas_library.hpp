// Which BLAS this process runs, for result files and benchmark headers: a GEMM figure depends on
// the kernels the BLAS chose for this processor as much as on relay (Debian's OpenBLAS 0.3.21
// falls back to its Prescott kernels on processors newer than it knows: a quarter of the rate).
#pragma once

#include <string>

namespace relay::core {

/// "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ... (core: Prescott)" when the BLAS linked in is
/// OpenBLAS (its openblas_get_config and openblas_get_corename, looked up at run time, so that any
/// BLAS links); otherwise "" (not known).
std::string running_blas_library();

}  // namespace relay::core
