// A small least-recently-used cache of built programs, keyed by everything a program depends
// on. Applications repeat the same few broadcasts (a GEMM's panels), so a handful of entries
// removes schedule building from the hot path. Thread-safe; entries are shared so an
// execution keeps its program alive even if the cache evicts it.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "schedule/schedule.hpp"

namespace relay::schedule {

template <class Key>
class ProgramCache {
 public:
  explicit ProgramCache(std::size_t capacity) : capacity_(capacity) {}

  /// The cached program for `key`, or the one `build()` returns (then cached).
  template <class Build>
  std::shared_ptr<const RankProgram> get(const Key& key, Build&& build) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++clock_;
    for (auto& e : entries_) {
      if (e.key == key) {
        e.used = clock_;
        return e.program;
      }
    }
    auto program = std::make_shared<const RankProgram>(build());
    if (entries_.size() < capacity_) {
      entries_.push_back(Entry{key, program, clock_});
    } else {
      Entry* oldest = &entries_.front();
      for (auto& e : entries_) {
        if (e.used < oldest->used) oldest = &e;
      }
      *oldest = Entry{key, program, clock_};
    }
    return program;
  }

 private:
  struct Entry {
    Key key;
    std::shared_ptr<const RankProgram> program;
    std::uint64_t used;
  };
  mutable std::mutex mutex_;
  std::size_t capacity_;
  std::vector<Entry> entries_;
  std::uint64_t clock_ = 0;
};

}  // namespace relay::schedule
