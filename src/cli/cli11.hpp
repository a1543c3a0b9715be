// CLI11, as every file of the relay command includes it. Under SimGrid SMPI (relay-smpi),
// smpicxx includes smpi_helpers.h before anything else, and it defines exit(x) as a macro (so
// that a rank's exit ends only that rank); CLI11 declares a member App::exit, which the macro
// breaks. The command never calls exit(): it returns from main.
#pragma once

#ifdef exit
#undef exit
#endif
#include <CLI/CLI.hpp>
