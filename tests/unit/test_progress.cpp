// The progress reporter: into a file (not a terminal) it writes plain lines, never a carriage
// return, the first and the last step at least; hidden, it writes nothing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "measure/progress.hpp"

namespace {

// What `run` writes to stderr, with stderr sent to a temporary file.
template <class F>
std::string stderr_of(F run) {
  char path[] = "/tmp/relay_progress_XXXXXX";
  const int file = mkstemp(path);
  EXPECT_GE(file, 0);
  std::fflush(stderr);
  const int saved = dup(STDERR_FILENO);
  dup2(file, STDERR_FILENO);
  run();
  std::fflush(stderr);
  dup2(saved, STDERR_FILENO);
  close(saved);
  close(file);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  unlink(path);
  return text.str();
}

TEST(Progress, PlainLinesIntoAFile) {
  const std::string text = stderr_of([] {
    relay::measure::Progress progress(true, "sweep ", 50);
    for (int i = 0; i < 50; ++i) progress.step("64KiB");
  });
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
  EXPECT_NE(text.find("sweep [1/50] 64KiB: "), std::string::npos) << text;
  EXPECT_NE(text.find("sweep [50/50] 64KiB: "), std::string::npos) << text;
  EXPECT_LT(std::count(text.begin(), text.end(), '\n'), 50) << "a line per step, not now and then";
}

TEST(Progress, ApproximateTotalEndsWithItsLastLine) {
  const std::string text = stderr_of([] {
    relay::measure::Progress progress(true, "", 3, true);
    for (int i = 0; i < 5; ++i) progress.step();
    progress.end_line();
  });
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
  EXPECT_NE(text.find("[5/~3] "), std::string::npos) << text;
}

TEST(Progress, HiddenWritesNothing) {
  EXPECT_EQ(stderr_of([] {
              relay::measure::Progress progress(false, "", 4);
              for (int i = 0; i < 4; ++i) progress.step("x");
            }),
            "");
}

}  // namespace
