// Option handling shared by every collective: the RELAY_<OP>_* environment overrides and the
// checks of the fields all option structs have, each naming the field or variable it rejects.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "core/environment.hpp"
#include "relay/relay.h"

namespace relay::coll {

inline constexpr int kDefaultMaxRequests = 16;
inline constexpr int kMaxMaxRequests = 1 << 16;
/// The largest fanout, from RELAY_<OP>_FANOUT and from options->fanout alike (a tree of more
/// children than this has no use, and INT_MAX overflowed the schedules' arithmetic).
inline constexpr int kMaxFanout = 1 << 20;

/// The fields every collective's options have.
struct CommonOptions {
  relay_policy_t policy = RELAY_POLICY_DEFAULT;
  long long segment_bytes = RELAY_SEGMENT_DEFAULT;
  int fanout = 0;
  int max_requests = 0;
  relay_check_t check = RELAY_CHECK_DEFAULT;
};

/// The integer a caller stored in an enum-typed field, read as the field's bytes. The C API
/// lets a caller store any int there (opt.algorithm = (relay_bcast_algorithm_t)99), and
/// loading such a value as the enum type is undefined behaviour in C++ (UBSan: "load of value
/// 99, which is not a valid value for type"); read it this way and check it before the field
/// is ever read as its enum.
template <class E>
long long stored_value(const E& field) {
  static_assert(std::is_enum_v<E>, "stored_value reads enum fields");
  // Signed: a C caller stores ints, and GCC gives these enums an unsigned underlying type
  // (no negative enumerators), which would read a stored -1 as 4294967295.
  std::make_signed_t<std::underlying_type_t<E>> raw;
  std::memcpy(&raw, &field, sizeof raw);
  return static_cast<long long>(raw);
}

/// The size of each options struct's first versioned layout (relay 0.1, the first with
/// struct_size): the least struct_size a caller can have. Fields added later do not change it.
inline constexpr std::size_t kBcastOptionsFirstBytes =
    offsetof(relay_bcast_options_t, check) + sizeof(relay_check_t);
inline constexpr std::size_t kCollOptionsFirstBytes =
    offsetof(relay_coll_options_t, check) + sizeof(relay_check_t);

/// relay_bcast_options_init_sized / relay_coll_options_init_sized: the defaults in the first
/// struct_size bytes of the caller's struct (fields of newer versions 0), struct_size set.
void init_options(relay_bcast_options_t* options, std::size_t struct_size);
void init_options(relay_coll_options_t* options, std::size_t struct_size);

/// A caller's options (NULL: the defaults) as this library's struct, the first read of them at
/// every entry point: struct_size checked (RELAY_ERR_OPTIONS naming argument `position` of
/// `function`), the bytes both versions know copied, then validate_stored_enums.
relay_status_t read_options(const relay_bcast_options_t* given, relay_bcast_options_t& out,
                            const char* function, int position);
relay_status_t read_options(const relay_coll_options_t* given, relay_coll_options_t& out,
                            const char* function, int position);

/// Checks the enum fields of a caller's options as the integers stored there (algorithm,
/// policy, check; argument `position` of `function`), before anything reads them as enums.
/// RELAY_ERR_ALGORITHM, RELAY_ERR_POLICY or RELAY_ERR_OPTIONS naming the field and value.
relay_status_t validate_stored_enums(const relay_bcast_options_t& o, const char* function,
                                     int position);
/// The same for a collective's options: policy and check (algorithm is an int there, checked
/// against the collective's registry by coll::resolve).
relay_status_t validate_stored_enums(const relay_coll_options_t& o, const char* function,
                                     int position);

/// options->check if it holds a check mode, else RELAY_CHECK_DEFAULT (an invalid value is
/// reported by validate_stored_enums); options may be NULL. For code that must know the check
/// mode before the options are validated (whether to agree on the arguments).
relay_check_t stored_check(const relay_bcast_options_t* options);
relay_check_t stored_check(const relay_coll_options_t* options);

/// Applies RELAY_<prefix>_POLICY, _SEGMENT_BYTES, _FANOUT, _MAX_REQUESTS and RELAY_CHECK.
relay_status_t apply_environment(const core::RelayEnvironment& env, std::string_view prefix,
                                 const char* function, CommonOptions& o);

/// Validates the common fields (argument `position` of `function`); segments must be whole
/// elem_bytes-sized elements.
relay_status_t validate(const CommonOptions& o, std::int64_t elem_bytes, const char* function,
                        int position);

}  // namespace relay::coll
