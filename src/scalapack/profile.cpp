// The drop-in's call record for relay profile (profile.hpp).
#include "scalapack/profile.hpp"

#include <mpi.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "core/settings.hpp"

namespace relay::scalapack {
namespace {

struct Totals {
  long long calls = 0;
  double seconds = 0;
  std::map<std::string, long long> configs;  ///< relay's configuration -> calls
};

using Key = std::tuple<std::string, char, char, long long, long long, long long, long long,
                       long long, long long, int, int, bool>;

/// The calls of this process, written when it exits (a static's destructor runs after the
/// program's MPI_Finalize, and needs no MPI: the rank was taken at the first call).
class Recorder {
 public:
  ~Recorder() {
    if (calls_.empty()) return;
    try {
      write();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "relay profile: cannot write %s: %s\n", path().c_str(), e.what());
    }
  }

  void add(const CallShape& s, double seconds, bool by_relay, const std::string& config) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (rank_ < 0) {
      int initialized = 0;
      MPI_Initialized(&initialized);
      if (initialized) MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    }
    Totals& t = calls_[Key{s.routine, s.transa, s.transb, s.m, s.n, s.k, s.mb, s.nb, s.kb, s.nprow,
                           s.npcol, by_relay}];
    ++t.calls;
    t.seconds += seconds;
    if (!config.empty()) ++t.configs[config];
  }

 private:
  std::string path() const {
    const char* dir = core::read_setting(core::Knob::profile_dir);
    return std::string(dir != nullptr ? dir : ".") + "/calls." + std::to_string(rank_) + ".json";
  }

  void write() const {
    nlohmann::json doc = {{"schema", "relay.profile.calls/1"}, {"rank", rank_}};
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& [key, t] : calls_) {
      const auto& [routine, ta, tb, m, n, k, mb, nb, kb, nprow, npcol, by_relay] = key;
      rows.push_back({{"routine", routine},
                      {"transa", std::string(1, ta)},
                      {"transb", std::string(1, tb)},
                      {"m", m},
                      {"n", n},
                      {"k", k},
                      {"mb", mb},
                      {"nb", nb},
                      {"kb", kb},
                      {"grid", {nprow, npcol}},
                      {"served_by", by_relay ? "relay" : "scalapack"},
                      {"calls", t.calls},
                      {"seconds", t.seconds},
                      {"configs", t.configs}});
    }
    doc["groups"] = rows;
    // Whole or not at all: written beside, then renamed (relay profile polls for the name).
    const std::string target = path();
    const std::string temp = target + ".tmp";
    {
      std::ofstream out(temp);
      out << doc.dump() << "\n";
      if (!out) throw std::runtime_error("write failed");
    }
    std::filesystem::rename(temp, target);
  }

  std::mutex mutex_;
  int rank_ = -1;
  std::map<Key, Totals> calls_;
};

Recorder& recorder() {
  static Recorder r;
  return r;
}

}  // namespace

bool profiling() {
  static const bool on = core::read_setting(core::Knob::profile_dir) != nullptr;
  return on;
}

void record_call(const CallShape& shape, double seconds, bool by_relay, const std::string& config) {
  recorder().add(shape, seconds, by_relay, config);
}

}  // namespace relay::scalapack
