// Reading the C API's option structs across versions. Each starts with `size_t struct_size`,
// the sizeof the caller was compiled with (relay_*_options_init sets it); fields are only ever
// added at the end, and a field added later means "as before" when 0. So a struct from an
// older caller is shorter (its missing fields take their defaults) and one from a newer
// caller is longer (usable when the fields this library does not know are all 0).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>

#include <fmt/format.h>

namespace relay::core {

/// A struct_size above this is taken for an uninitialised field, not a newer struct.
inline constexpr std::size_t kMaxStructBytes = 4096;

/// The struct_size a caller stored (the first member, read as bytes: any value may be there).
template <class Struct>
std::size_t stored_struct_size(const Struct* given) {
  std::size_t size = 0;
  std::memcpy(&size, given, sizeof size);
  return size;
}

/// Copies the caller's struct `given` over `out` (which holds the defaults): the bytes both
/// versions know, then out.struct_size = sizeof(Struct). `first_bytes` is the size of the
/// struct's first versioned layout (the least a caller can have). On a struct_size that no
/// version has, or fields past this library's that are not 0, returns false with `why` (to
/// follow "struct_size = N"), and out is left as it was.
template <class Struct>
bool copy_sized_struct(const Struct* given, Struct& out, std::size_t first_bytes,
                       std::string& why) {
  const std::size_t size = stored_struct_size(given);
  if (size < first_bytes || size > kMaxStructBytes) {
    why = fmt::format(
        "is not the size of any version of the struct ({} bytes here): "
        "initialise it with its _init function",
        sizeof(Struct));
    return false;
  }
  const auto* bytes = reinterpret_cast<const unsigned char*>(given);
  for (std::size_t i = sizeof(Struct); i < size; ++i) {
    if (bytes[i] != 0) {
      why = fmt::format(
          "sets fields past the {} bytes this relay knows (a newer relay.h's "
          "struct): this relay cannot honour them",
          sizeof(Struct));
      return false;
    }
  }
  std::memcpy(&out, given, std::min(size, sizeof(Struct)));
  out.struct_size = sizeof(Struct);
  return true;
}

/// Fills the first struct_size bytes of a caller's struct from `defaults` (this library's
/// version), zeroing the fields of newer versions (0: as before) and setting struct_size.
template <class Struct>
void init_sized_struct(Struct* out, std::size_t struct_size, const Struct& defaults) {
  if (out == nullptr || struct_size < sizeof(std::size_t)) return;
  auto* bytes = reinterpret_cast<unsigned char*>(out);
  const std::size_t known = std::min(struct_size, sizeof(Struct));
  std::memcpy(bytes, &defaults, known);
  if (struct_size > known) std::memset(bytes + known, 0, struct_size - known);
  std::memcpy(bytes, &struct_size, sizeof struct_size);
}

}  // namespace relay::core
