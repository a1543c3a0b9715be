// Shared by relay model, relay tune and the benchmarks: reading a parameter file given to an
// option, and the collective an --operation names.
#pragma once

#include <optional>
#include <string>

#include "coll/registry.hpp"
#include "model/params.hpp"

namespace relay::cli {

/// The machine of a parameter file given to `option` (--model, --params); a file that cannot
/// be read or is not one throws std::invalid_argument naming the option and the file (a usage
/// error, alike on every rank).
model::Machine read_machine(const std::string& option, const std::string& path, bool use_plogp,
                            double duplex_override = -1);

/// The collective an `--operation` names; nullopt for "bcast". Throws std::invalid_argument
/// listing the names for anything else.
std::optional<coll::Collective> parse_operation(const std::string& name);

}  // namespace relay::cli
