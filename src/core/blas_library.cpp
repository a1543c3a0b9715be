#include "core/blas_library.hpp"

#include <dlfcn.h>

namespace relay::core {

std::string running_blas_library() {
  using text_fn = char* (*)();
  // Looked up, not declared: relay links whichever BLAS the build found, and only OpenBLAS
  // says which kernels it picked.
  const auto config = reinterpret_cast<text_fn>(dlsym(RTLD_DEFAULT, "openblas_get_config"));
  const auto core = reinterpret_cast<text_fn>(dlsym(RTLD_DEFAULT, "openblas_get_corename"));
  if (config == nullptr) return "";
  std::string text = config();
  while (!text.empty() && text.back() == ' ') text.pop_back();
  if (core != nullptr) text += std::string(" (core: ") + core() + ")";
  return text;
}

}  // namespace relay::core
