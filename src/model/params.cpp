#include "model/params.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "measure/stats.hpp"

namespace relay::model {
namespace {

bool finite_nonneg(double v) { return std::isfinite(v) && v >= 0; }

double lerp(double a, double b, double f) { return a + (b - a) * f; }

// The rows around `bytes`, strictly inside the first and last sizes of `rows` (sorted by
// size): the index of the row above and the fraction of the way from the row below.
template <class Rows, class SizeOf>
std::pair<std::size_t, double> bracket(const Rows& rows, std::int64_t bytes, SizeOf size_of) {
  const auto hi = std::upper_bound(rows.begin(), rows.end(), bytes,
                                   [&](std::int64_t b, const auto& r) { return b < size_of(r); });
  const std::int64_t a = size_of(*(hi - 1)), b = size_of(*hi);
  return {static_cast<std::size_t>(hi - rows.begin()),
          static_cast<double>(bytes - a) / static_cast<double>(b - a)};
}

}  // namespace

PlogpTable::PlogpTable(std::vector<PlogpRow> rows) : rows_(std::move(rows)) {
  std::sort(rows_.begin(), rows_.end(),
            [](const PlogpRow& a, const PlogpRow& b) { return a.bytes < b.bytes; });
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const auto& r = rows_[i];
    if (r.bytes < 0 || (i > 0 && rows_[i - 1].bytes == r.bytes)) {
      throw std::invalid_argument("PLogP table: message sizes must be distinct and >= 0");
    }
    if (!finite_nonneg(r.send_overhead_s) || !finite_nonneg(r.recv_overhead_s) ||
        !finite_nonneg(r.gap_s) || !finite_nonneg(r.latency_s)) {
      throw std::invalid_argument("PLogP table: row for " + std::to_string(r.bytes) +
                                  " bytes has a negative or non-finite value");
    }
  }
}

PlogpRow PlogpTable::at(std::int64_t bytes) const {
  if (rows_.empty()) return PlogpRow{bytes};
  if (bytes <= rows_.front().bytes) {
    PlogpRow r = rows_.front();
    r.bytes = bytes;
    return r;
  }
  if (bytes >= rows_.back().bytes) {
    PlogpRow r = rows_.back();
    if (rows_.size() >= 2 && bytes > r.bytes) {
      const PlogpRow& p = rows_[rows_.size() - 2];
      const double slope =
          std::max(0.0, (r.gap_s - p.gap_s) / static_cast<double>(r.bytes - p.bytes));
      r.gap_s += slope * static_cast<double>(bytes - r.bytes);
    }
    r.bytes = bytes;
    return r;
  }
  const auto [hi, f] = bracket(rows_, bytes, [](const PlogpRow& r) { return r.bytes; });
  const PlogpRow& b = rows_[hi];
  const PlogpRow& a = rows_[hi - 1];
  return PlogpRow{bytes, lerp(a.send_overhead_s, b.send_overhead_s, f),
                  lerp(a.recv_overhead_s, b.recv_overhead_s, f), lerp(a.gap_s, b.gap_s, f),
                  lerp(a.latency_s, b.latency_s, f)};
}

CpuCostTable::CpuCostTable(std::vector<std::pair<std::int64_t, double>> rows)
    : rows_(std::move(rows)) {
  std::sort(rows_.begin(), rows_.end());
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    if (rows_[i].first <= 0 || (i > 0 && rows_[i - 1].first == rows_[i].first)) {
      throw std::invalid_argument("combine table: sizes must be distinct and > 0");
    }
    if (!finite_nonneg(rows_[i].second)) {
      throw std::invalid_argument("combine table: row for " + std::to_string(rows_[i].first) +
                                  " bytes has a negative or non-finite time");
    }
  }
}

double CpuCostTable::at(std::int64_t bytes) const {
  if (rows_.empty() || bytes <= 0) return 0;
  if (bytes <= rows_.front().first) return rows_.front().second;
  if (bytes >= rows_.back().first) {
    double t = rows_.back().second;
    if (rows_.size() >= 2) {
      const auto& p = rows_[rows_.size() - 2];
      const auto& r = rows_.back();
      const double slope =
          std::max(0.0, (r.second - p.second) / static_cast<double>(r.first - p.first));
      t += slope * static_cast<double>(bytes - r.first);
    }
    return t;
  }
  const auto [hi, f] = bracket(rows_, bytes, [](const auto& r) { return r.first; });
  return lerp(rows_[hi - 1].second, rows_[hi].second, f);
}

MessageCost Machine::cost(std::int64_t bytes) const {
  MessageCost c;
  if (plogp.empty()) {
    c.send_overhead_s = send_overhead_s;
    c.recv_overhead_s = recv_overhead_s;
    c.port_fixed_s = alpha_s;
    c.port_work_s = beta_s_per_byte * static_cast<double>(bytes);
    c.latency_s = latency_s;
    return c;
  }
  const PlogpRow r = plogp.at(bytes);
  c.send_overhead_s = r.send_overhead_s;
  c.recv_overhead_s = r.recv_overhead_s;
  c.port_fixed_s = std::min(r.gap_s, plogp.rows().front().gap_s);
  c.port_work_s = r.gap_s - c.port_fixed_s;
  c.latency_s = r.latency_s;
  // A rendezvous message waits for the request to send to reach the receiver and its
  // acknowledgement to come back, each a control message costed as the table's smallest size
  // end to end, before its data moves. They hold no ports (a packet or two, which interleave
  // with the data on the links); only a sender that waits for this send sits idle meanwhile.
  if (eager_limit_bytes >= 0 && bytes > eager_limit_bytes) {
    const PlogpRow& ctrl = plogp.rows().front();
    const double one_way =
        ctrl.send_overhead_s + ctrl.gap_s + ctrl.latency_s + ctrl.recv_overhead_s;
    c.handshake_s = 2 * one_way;
  }
  return c;
}

HockneyFit fit_hockney(const std::vector<std::int64_t>& bytes, const std::vector<double>& t) {
  std::vector<double> x(bytes.begin(), bytes.end());
  HockneyFit fit;
  double a = 0, b = 0;
  if (!measure::fit_line_relative(x, t, a, b)) return fit;
  fit.alpha_s = std::max(0.0, a);
  fit.beta_s_per_byte = std::max(0.0, b);
  fit.ok = true;
  return fit;
}

namespace {

double number(const nlohmann::json& obj, const char* key, const std::string& where) {
  if (!obj.is_object() || !obj.contains(key)) {
    throw std::runtime_error(where + ": missing \"" + key + "\"");
  }
  const auto& v = obj.at(key);
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
    throw std::runtime_error(where + "." + key + ": expected a number >= 0");
  }
  return v.get<double>();
}

}  // namespace

Machine machine_from_json(const nlohmann::json& doc, bool use_plogp, double duplex_override) {
  if (!doc.is_object() || doc.value("schema", std::string()) != kParamsSchema) {
    throw std::runtime_error(std::string("not a model parameter file (\"schema\" must be \"") +
                             kParamsSchema + "\")");
  }
  Machine m;
  const auto& h = doc.contains("hockney") ? doc.at("hockney") : nlohmann::json();
  m.alpha_s = number(h, "alpha_s", "hockney");
  m.beta_s_per_byte = number(h, "beta_s_per_byte", "hockney");
  m.duplex = doc.contains("duplex") ? std::min(1.0, number(doc, "duplex", "params")) : 1.0;
  if (duplex_override >= 0) m.duplex = std::min(1.0, duplex_override);
  if (doc.contains("sends_to_two_peers")) {
    const auto& v = doc.at("sends_to_two_peers");
    if (!v.is_string() || (v != "one_at_a_time" && v != "shared_link")) {
      throw std::runtime_error(
          "params.sends_to_two_peers: expected \"one_at_a_time\" or \"shared_link\"");
    }
    m.shared_link = v == "shared_link";
  }
  if (doc.contains("transfer_slots")) {
    m.transfer_slots = number(doc, "transfer_slots", "params");
    if (m.transfer_slots > 0 && m.transfer_slots < 1) {
      throw std::runtime_error("params.transfer_slots: expected 0 (no limit) or a number >= 1");
    }
  }
  if (use_plogp && doc.contains("plogp")) {
    const auto& rows = doc.at("plogp");
    if (!rows.is_array()) throw std::runtime_error("plogp: expected an array");
    std::vector<PlogpRow> table;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::string where = "plogp[" + std::to_string(i) + "]";
      const auto& r = rows[i];
      if (!r.is_object() || !r.contains("bytes") || !r.at("bytes").is_number_integer()) {
        throw std::runtime_error(where + ".bytes: expected an integer");
      }
      table.push_back({r.at("bytes").get<std::int64_t>(), number(r, "os_s", where),
                       number(r, "or_s", where), number(r, "g_s", where),
                       number(r, "latency_s", where)});
    }
    try {
      m.plogp = PlogpTable(std::move(table));
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(e.what());
    }
  }
  // relay model measure writes its largest size when every size was eager: no limit was seen.
  if (!m.plogp.empty() && doc.contains("eager_limit_bytes")) {
    const auto& e = doc.at("eager_limit_bytes");
    if (!e.is_number_integer() || e.get<std::int64_t>() < 0) {
      throw std::runtime_error("params.eager_limit_bytes: expected an integer >= 0");
    }
    if (e.get<std::int64_t>() < m.plogp.rows().back().bytes)
      m.eager_limit_bytes = e.get<std::int64_t>();
  }
  if (doc.contains("combine")) {
    const auto& c = doc.at("combine");
    if (!c.is_object() || !c.contains("rows") || !c.at("rows").is_array()) {
      throw std::runtime_error("combine.rows: expected an array");
    }
    std::vector<std::pair<std::int64_t, double>> table;
    for (std::size_t i = 0; i < c.at("rows").size(); ++i) {
      const std::string where = "combine.rows[" + std::to_string(i) + "]";
      const auto& r = c.at("rows")[i];
      if (!r.is_object() || !r.contains("bytes") || !r.at("bytes").is_number_integer()) {
        throw std::runtime_error(where + ".bytes: expected an integer");
      }
      table.emplace_back(r.at("bytes").get<std::int64_t>(), number(r, "s", where));
    }
    try {
      m.combine = CpuCostTable(std::move(table));
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(e.what());
    }
  }
  return m;
}

nlohmann::json params_document(const measure::P2pMeasurement& m, const nlohmann::json& machine) {
  std::vector<std::int64_t> fit_x;
  std::vector<double> fit_y;
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : m.rows) {
    fit_x.push_back(r.bytes);
    fit_y.push_back(r.rtt_s / 2);
    nlohmann::json row = {{"bytes", r.bytes},
                          {"rtt_s", r.rtt_s},
                          {"rtt_spread", r.rtt_spread},
                          {"rtt_samples", r.rtt_samples},
                          {"os_s", r.os_s},
                          {"or_s", r.or_s},
                          {"g_s", r.g_s},
                          {"g_spread", r.g_spread},
                          {"latency_s", r.latency_s},
                          {"eager", r.eager},
                          {"stable", r.stable}};
    if (r.over_rtt > 0) row["over_rtt"] = r.over_rtt;
    rows.push_back(row);
  }
  nlohmann::json combine_rows = nlohmann::json::array();
  for (const auto& c : m.combine)
    combine_rows.push_back({{"bytes", c.bytes}, {"s", c.s}, {"spread", c.spread}});
  const auto fit = fit_hockney(fit_x, fit_y);
  nlohmann::json doc = {
      {"schema", kParamsSchema},
      {"machine", machine},
      {"pair", {0, m.peer}},
      {"pairs", m.concurrent ? "concurrent" : "lone"},
      {"pairs_reason", m.pairs_reason},
      {"cycle_bytes", m.cycle_bytes},
      {"hockney",
       {{"alpha_s", fit.alpha_s},
        {"beta_s_per_byte", fit.beta_s_per_byte},
        {"bandwidth_MBps", fit.beta_s_per_byte > 0 ? 1e-6 / fit.beta_s_per_byte : 0.0}}},
      {"eager_limit_bytes", m.eager_limit_bytes},
      {"duplex", m.duplex},
      {"duplex_spread", m.duplex_spread},
      {"transfer_slots", m.transfer_slots},
      {"concurrent_slowdown", m.concurrent_slowdown},

      {"plogp", rows},
      {"combine",
       {{"call", "MPI_Reduce_local"},
        {"datatype", "MPI_DOUBLE"},
        {"op", "MPI_SUM"},
        {"rows", combine_rows}}}};
  // Measured with 3 ranks or more; otherwise absent, and the model keeps its one port.
  if (m.two_peers_first_ratio > 0) {
    doc["two_peers_first_ratio"] = m.two_peers_first_ratio;
    doc["sends_to_two_peers"] = m.two_peers_first_ratio > 1.75 ? "shared_link" : "one_at_a_time";
  }
  return doc;
}

nlohmann::json read_params_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(path + ": not valid JSON (" + e.what() + ")");
  }
}

}  // namespace relay::model
