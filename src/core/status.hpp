// Failure reporting: a status code plus a thread-local one-line explanation that names the
// argument and the value (relay_last_error()).
#pragma once

#include <fmt/format.h>

#include <string>

#include "relay/relay.h"

namespace relay::core {

void set_last_error(std::string message);
const char* last_error();
void clear_last_error();

template <class... Args>
relay_status_t fail(relay_status_t status, fmt::format_string<Args...> format, Args&&... args) {
  set_last_error(fmt::format(format, std::forward<Args>(args)...));
  return status;
}

/// Writes one line to stderr, prefixed with the MPI rank, when RELAY_LOG is set (to anything
/// but 0). The library's only output, and opt-in: the choices it made and why.
bool log_enabled();
void log_line(const std::string& line);

}  // namespace relay::core
