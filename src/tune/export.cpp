#include "tune/export.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace relay::tune {

using coll::Choice;  // the decision tables live in coll (coll/table.hpp)
using coll::Rule;
using coll::Table;
namespace {

using ordered = nlohmann::ordered_json;

void write_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(tmp + ": cannot write");
    out << text;
    out.flush();
    if (!out) throw std::runtime_error(tmp + ": write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot rename the temporary file into place");
  }
}

// Rules of `operation` grouped by communicator-size range, each sorted by bytes.
std::map<std::pair<int, int>, std::vector<const Rule*>> by_comm(const Table& t, const char* op) {
  std::map<std::pair<int, int>, std::vector<const Rule*>> out;
  for (const auto& r : t.rules) {
    if (r.operation == op) out[{r.min_ranks, r.max_ranks}].push_back(&r);
  }
  for (auto& [k, v] : out) {
    std::sort(v.begin(), v.end(), [](auto* a, auto* b) { return a->min_bytes < b->min_bytes; });
  }
  return out;
}

struct OmpiChoice {
  int id;
  int faninout;
  std::string note;
};

OmpiChoice ompi_bcast(const Choice& c) {
  const int fan = c.fanout;
  if (c.algorithm == "linear") return {1, 0, ""};
  if (c.algorithm == "chain") return {2, fan > 0 ? fan : 1, ""};
  if (c.algorithm == "pipeline") return {3, 0, ""};
  if (c.algorithm == "binary") return {5, 0, ""};
  if (c.algorithm == "binomial") return {6, 0, ""};
  if (c.algorithm == "scatter_allgather") return {9, 0, ""};
  if (c.algorithm == "kary") {
    if (fan == 2 || fan == 0) return {5, 0, "kary (k = 2) exported as binary_tree (5)"};
    return {7, fan,
            "kary (k = " + std::to_string(fan) + ") exported as knomial (7) with radix " +
                std::to_string(fan)};
  }
  return {0, 0, "mpi exported as 0 (ignore: Open MPI's fixed decision)"};
}

std::string mpich_bcast(const Rule& r, std::set<std::string>& notes) {
  const auto& a = r.choice.algorithm;
  if (a == "binomial") return "MPIR_Bcast_intra_binomial";
  if (a == "scatter_allgather") return "MPIR_Bcast_intra_scatter_ring_allgather";
  if (a == "pipeline" || a == "chain") {
    notes.insert(a +
                 " exported as MPIR_Bcast_intra_scatter_ring_allgather (MPICH 4.0's "
                 "bandwidth-optimal blocking bcast; it has no pipelined chain)");
    return "MPIR_Bcast_intra_scatter_ring_allgather";
  }
  if (a == "mpi") {
    notes.insert(
        "mpi exported as MPICH's own default for non-power-of-two sizes (binomial up to 12288 "
        "bytes, then scatter_ring_allgather)");
    return r.max_bytes <= 12288 ? "MPIR_Bcast_intra_binomial"
                                : "MPIR_Bcast_intra_scatter_ring_allgather";
  }
  notes.insert(a + " exported as MPIR_Bcast_intra_binomial (MPICH 4.0 has no " + a +
               " blocking bcast)");
  return "MPIR_Bcast_intra_binomial";
}

std::string find_builtin_mpich_json() {
  for (const char* lib :
       {"/usr/lib/x86_64-linux-gnu/libmpich.so.12", "/usr/lib/aarch64-linux-gnu/libmpich.so.12",
        "/usr/lib64/libmpich.so.12", "/usr/local/lib/libmpich.so.12"}) {
    std::ifstream in(lib, std::ios::binary);
    if (!in) continue;
    std::ostringstream s;
    s << in.rdbuf();
    const std::string bytes = s.str();
    // The MPIR-level tree: starts with the bcast collective and covers the nonblocking ones.
    for (std::size_t at = bytes.find("{\"collective=bcast\""); at != std::string::npos;
         at = bytes.find("{\"collective=bcast\"", at + 1)) {
      const std::size_t end = bytes.find('\0', at);
      const std::string text = bytes.substr(at, end - at);
      if (text.find("MPIR_Bcast_intra_binomial") != std::string::npos &&
          text.find("collective=ibcast") != std::string::npos) {
        return text;
      }
    }
  }
  return "";
}

// The communicator sizes the rules cover, for the notes: "2-4, 8".
std::string covered_sizes(const std::map<std::pair<int, int>, std::vector<const Rule*>>& groups) {
  std::string text;
  for (const auto& [range, rules] : groups) {
    text += (text.empty() ? "" : ", ") + std::to_string(range.first);
    if (range.second != range.first) {
      text +=
          "-" + (range.second == std::numeric_limits<int>::max() ? std::string("any")
                                                                 : std::to_string(range.second));
    }
  }
  return text;
}

// Every rule is `mpi`: the export hands each choice back to the MPI library.
bool all_mpi(const std::map<std::pair<int, int>, std::vector<const Rule*>>& groups) {
  for (const auto& [range, rules] : groups) {
    for (const Rule* r : rules) {
      if (r->choice.algorithm != "mpi") return false;
    }
  }
  return true;
}

// What an export leaves out: the rules of operations other than bcast.
std::string other_operations_note(const Table& t) {
  std::set<std::string> ops;
  for (const auto& r : t.rules) {
    if (r.operation != "bcast") ops.insert(r.operation);
  }
  if (ops.empty()) return "";
  std::string names;
  for (const auto& op : ops) names += (names.empty() ? "" : ", ") + op;
  return "# note: rules of " + names + " are not exported (relay exports broadcast rules only)\n";
}

}  // namespace

ExportNotes export_openmpi(const Table& table, const std::string& path) {
  const auto groups = by_comm(table, "bcast");
  if (groups.empty()) throw std::runtime_error("the table has no bcast rules to export");
  std::set<std::string> notes;
  // Open MPI applies a communicator-size entry up to the next one listed (sizes below the first
  // get its fixed decision): each range that is not followed at once by the next is closed by
  // an entry whose one rule is algorithm 0, Open MPI's own fixed decision.
  std::ostringstream body;
  int entries = 0;
  for (auto it = groups.begin(); it != groups.end(); ++it) {
    const auto& [range, rules] = *it;
    body << range.first << " # communicator size (relay rule range " << range.first << "-"
         << range.second << ")\n";
    body << rules.size() << " # message sizes\n";
    for (const Rule* r : rules) {
      const auto c = ompi_bcast(r->choice);
      if (!c.note.empty()) notes.insert(c.note);
      body << r->min_bytes << " " << c.id << " " << c.faninout << " " << r->choice.segment_bytes
           << " # from " << r->min_bytes << " bytes: relay " << r->choice.algorithm << "\n";
    }
    ++entries;
    const auto next = std::next(it);
    const bool open_ended = range.second == std::numeric_limits<int>::max();
    if (!open_ended && (next == groups.end() || next->first.first > range.second + 1)) {
      body << range.second + 1
           << " # communicator size: beyond relay's range, Open MPI's own fixed decision\n"
           << "1 # message sizes\n0 0 0 0 # algorithm 0: Open MPI's fixed decision\n";
      ++entries;
    }
  }
  std::ostringstream out;
  out << "1 # collectives in this file (written by relay table --openmpi; rules for "
         "communicators of "
      << covered_sizes(groups) << " ranks, other sizes keep Open MPI's fixed decision)\n";
  out << "7 # collective id: bcast\n";
  out << entries << " # communicator sizes\n" << body.str();
  write_atomic(path, out.str());
  ExportNotes result;
  for (const auto& n : notes) result.notes += "# note: " + n + "\n";
  result.notes += "# note: the rules apply to communicators of " + covered_sizes(groups) +
                  " ranks (the table's ranges); other sizes keep Open MPI's fixed decision\n";
  result.notes += "# note: relay's executor policy and max_requests have no Open MPI counterpart\n";
  result.notes += other_operations_note(table);
  if (all_mpi(groups)) {
    result.warning =
        "every exported rule is `mpi` (algorithm 0, Open MPI's fixed decision): the file changes "
        "nothing";
  }
  return result;
}

ExportNotes export_mpich(const Table& table, const std::string& path, const std::string& base) {
  const auto groups = by_comm(table, "bcast");
  if (groups.empty()) throw std::runtime_error("the table has no bcast rules to export");
  std::string base_text;
  std::string base_name = base;
  if (base.empty()) {
    base_text = find_builtin_mpich_json();
    base_name = "the installed MPICH's built-in selection";
    if (base_text.empty()) {
      throw std::runtime_error(
          "no MPICH library with a built-in selection JSON found; give "
          "--mpich-base FILE (MPICH's coll_selection JSON)");
    }
  } else {
    std::ifstream in(base);
    if (!in) throw std::runtime_error(base + ": cannot open");
    std::ostringstream s;
    s << in.rdbuf();
    base_text = s.str();
  }
  ordered doc;
  try {
    doc = ordered::parse(base_text);
  } catch (const ordered::exception& e) {
    throw std::runtime_error(base_name + ": not valid JSON (" + e.what() + ")");
  }
  if (!doc.is_object()) throw std::runtime_error(base_name + ": not a selection JSON object");
  std::set<std::string> notes;
  // MPICH takes the first key that matches, in order: the sizes below, between and beyond the
  // table's ranges go to the base's own bcast tree, so the rules apply where they were made.
  const bool has_base_tree =
      doc.contains("collective=bcast") && doc["collective=bcast"].contains("comm_type=intra");
  const ordered base_tree = has_base_tree ? doc["collective=bcast"]["comm_type=intra"] : ordered();
  auto keep_base = [&](ordered& tree, const std::string& key) {
    if (!has_base_tree) {
      throw std::runtime_error(base_name +
                               ": has no collective=bcast comm_type=intra tree for the "
                               "communicator sizes the table does not cover");
    }
    tree[key] = base_tree;
  };
  ordered intra = ordered::object();
  long long covered_to = 0;  // the largest size so far
  bool open_ended = false;
  for (const auto& [range, rules] : groups) {
    if (range.first > covered_to + 1)
      keep_base(intra, "comm_size<=" + std::to_string(range.first - 1));
    ordered sizes = ordered::object();
    for (std::size_t i = 0; i < rules.size(); ++i) {
      const bool last = i + 1 == rules.size();
      const std::string key =
          last ? "avg_msg_size=any" : "avg_msg_size<=" + std::to_string(rules[i]->max_bytes);
      sizes[key] = {{"algorithm=" + mpich_bcast(*rules[i], notes), ordered::object()}};
    }
    open_ended = range.second == std::numeric_limits<int>::max();
    intra[open_ended ? std::string("comm_size=any")
                     : "comm_size<=" + std::to_string(range.second)] = sizes;
    covered_to = range.second;
    if (open_ended) break;
  }
  if (!open_ended) keep_base(intra, "comm_size=any");
  ordered bcast = ordered::object();
  bcast["comm_type=intra"] = intra;
  if (doc.contains("collective=bcast") && doc["collective=bcast"].contains("comm_type=inter")) {
    bcast["comm_type=inter"] = doc["collective=bcast"]["comm_type=inter"];
  }
  doc["collective=bcast"] = bcast;
  write_atomic(path, doc.dump(2) + "\n");
  ExportNotes result;
  result.notes = "# note: other collectives copied from " + base_name + "\n";
  for (const auto& n : notes) result.notes += "# note: " + n + "\n";
  result.notes += "# note: the rules apply to communicators of " + covered_sizes(groups) +
                  " ranks (the table's ranges); other sizes keep " + base_name + "'s bcast\n";
  result.notes +=
      "# note: segment sizes and relay's executor policy have no MPICH 4.0 counterpart\n";
  result.notes += other_operations_note(table);
  if (all_mpi(groups)) {
    result.warning =
        "every exported rule is `mpi`: the file only restates MPICH's own default choices";
  }
  return result;
}

}  // namespace relay::tune
