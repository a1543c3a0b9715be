#include "measure/progress.hpp"

#include <unistd.h>

#include <fmt/format.h>
#include <cstdio>
#include <utility>

namespace relay::measure {
namespace {

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

}  // namespace

Progress::Progress(MPI_Comm comm, bool quiet, std::string what, std::size_t total, bool approximate)
    : Progress(rank_of(comm) == 0 && !quiet, std::move(what), total, approximate) {}

Progress::Progress(bool show, std::string what, std::size_t total, bool approximate)
    : what_(std::move(what)),
      total_(total),
      approximate_(approximate),
      show_(show && total > 0),
      terminal_(isatty(STDERR_FILENO) == 1),
      start_(Clock::now()),
      last_line_(start_) {}

Progress::~Progress() { end_line(); }

void Progress::step(const std::string& detail) {
  ++done_;
  if (!show_) return;
  const auto now = Clock::now();
  const double elapsed_s = std::chrono::duration<double>(now - start_).count();
  const std::size_t left = total_ > done_ ? total_ - done_ : 0;
  const std::string line =
      fmt::format("{}[{}/{}{}] {}{:.0f} s elapsed, about {:.0f} s left", what_, done_,
                  approximate_ ? "~" : "", total_, detail.empty() ? "" : detail + ": ", elapsed_s,
                  elapsed_s / static_cast<double>(done_) * static_cast<double>(left));
  const bool last = !approximate_ && done_ >= total_;
  if (terminal_) {
    // Blanks what is left of a longer previous line.
    const std::size_t pad = last_width_ > line.size() ? last_width_ - line.size() : 0;
    std::fprintf(stderr, "\r%s%*s", line.c_str(), static_cast<int>(pad), "");
    last_width_ = line.size();
    line_open_ = true;
    if (last) end_line();
    std::fflush(stderr);
    return;
  }
  unprinted_ = line;
  if (done_ == 1 || last ||
      std::chrono::duration<double>(now - last_line_).count() >= kProgressLineInterval_s) {
    std::fprintf(stderr, "%s\n", line.c_str());
    unprinted_.clear();
    last_line_ = now;
  }
}

void Progress::end_line() {
  if (!unprinted_.empty()) {
    std::fprintf(stderr, "%s\n", unprinted_.c_str());
    unprinted_.clear();
  }
  if (!line_open_) return;
  std::fprintf(stderr, "\n");
  line_open_ = false;
  last_width_ = 0;
}

}  // namespace relay::measure
