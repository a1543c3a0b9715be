// Progress of a long measurement on stderr, the one reporter of every command: on a terminal a
// line rewritten in place ("\r"); into a file or a pipe a plain line now and then, so that a
// log holds no carriage returns.
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstddef>
#include <string>

namespace relay::measure {

class Progress {
 public:
  /// Shown on rank 0 of `comm` unless `quiet`: "WHAT[done/total] DETAIL: N s elapsed, about M s
  /// left". `approximate`: the total is an estimate (shown as ~total; done may pass it).
  Progress(MPI_Comm comm, bool quiet, std::string what, std::size_t total,
           bool approximate = false);
  /// Shown where `show` (the caller decided the rank and quiet).
  Progress(bool show, std::string what, std::size_t total, bool approximate = false);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// One more step done; `detail` says what it was.
  void step(const std::string& detail = std::string());
  /// Ends the line being rewritten on a terminal (before other output); elsewhere prints the
  /// latest line if it was held back.
  void end_line();
  std::size_t done() const { return done_; }
  /// A new estimate of the total (approximate totals only).
  void set_total(std::size_t total) { total_ = total; }

 private:
  using Clock = std::chrono::steady_clock;
  std::string what_;
  std::size_t total_ = 0, done_ = 0;
  bool approximate_ = false;
  bool show_ = false;
  bool terminal_ = false;
  bool line_open_ = false;      // a "\r" line awaits its newline
  std::string unprinted_;       // not a terminal: the latest line, not yet printed
  std::size_t last_width_ = 0;  // of the last "\r" line, to blank a longer one
  Clock::time_point start_, last_line_;
};

/// Seconds between two plain lines when stderr is not a terminal.
inline constexpr double kProgressLineInterval_s = 10.0;

}  // namespace relay::measure
