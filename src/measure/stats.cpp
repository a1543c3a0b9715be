#include "measure/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace relay::measure {

double quantile(std::vector<double> s, double q) {
  if (s.empty()) return 0;
  std::sort(s.begin(), s.end());
  q = std::clamp(q, 0.0, 1.0);
  const double pos = q * static_cast<double>(s.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, s.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return s[lo] + (s[hi] - s[lo]) * frac;
}

double median(std::vector<double> s) { return quantile(std::move(s), 0.5); }

double relative_spread(const std::vector<double>& s) {
  if (s.size() < 2) return 0;
  const double m = median(s);
  if (m <= 0) return 0;
  return (quantile(s, 0.75) - quantile(s, 0.25)) / m;
}

void Sampler::add(double seconds) {
  samples_.push_back(seconds);
  total_s_ += seconds;
}

bool Sampler::done() const {
  if (samples_.size() >= rule_.max_samples) return true;
  if (samples_.size() >= rule_.min_samples && total_s_ >= rule_.max_seconds) return true;
  return samples_.size() >= rule_.min_samples && relative_spread(samples_) <= rule_.max_spread;
}

Summary Sampler::summary() const {
  Summary out;
  out.samples = samples_.size();
  if (samples_.empty()) return out;
  out.median_s = median(samples_);
  out.min_s = *std::min_element(samples_.begin(), samples_.end());
  out.spread = relative_spread(samples_);
  out.total_s = total_s_;
  out.stable = samples_.size() >= rule_.min_samples && out.spread <= rule_.max_spread;
  out.stopped_by = out.stable                             ? "spread"
                   : samples_.size() >= rule_.max_samples ? "samples"
                                                          : "seconds";
  return out;
}

Paired paired_relative(const std::vector<std::vector<double>>& times) {
  Paired out;
  if (times.empty() || times.front().empty()) return out;
  const std::size_t rounds = times.front().size();
  std::vector<std::vector<double>> ratios(times.size());
  std::vector<double> round_times(times.size()), references;
  for (std::size_t r = 0; r < rounds; ++r) {
    for (std::size_t c = 0; c < times.size(); ++c) round_times[c] = times[c].at(r);
    const double reference = median(round_times);
    references.push_back(reference);
    if (!(reference > 0)) continue;
    for (std::size_t c = 0; c < times.size(); ++c) ratios[c].push_back(times[c][r] / reference);
  }
  for (auto& r : ratios) out.relative.push_back(median(r));
  out.reference = median(references);
  return out;
}

std::vector<std::vector<double>> interleaved_rounds(
    std::size_t count, int rounds, unsigned seed,
    const std::function<double(std::size_t)>& measure) {
  std::vector<std::vector<double>> times(count);
  std::vector<std::size_t> order(count);
  for (int round = 0; round < rounds; ++round) {
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::shuffle(order.begin(), order.end(), std::mt19937(seed + static_cast<unsigned>(round)));
    for (auto c : order) times[c].push_back(measure(c));
  }
  return times;
}

bool fit_line_relative(const std::vector<double>& x, const std::vector<double>& y, double& a,
                       double& b) {
  // Weighted least squares with weights w_i = 1 / y_i^2: solve the 2x2 normal equations.
  double sw = 0, swx = 0, swxx = 0, swy = 0, swxy = 0;
  std::size_t used = 0;
  double first_x = 0;
  bool distinct = false;
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) {
    if (!(y[i] > 0) || !std::isfinite(x[i])) continue;
    if (used == 0) first_x = x[i];
    if (x[i] != first_x) distinct = true;
    const double w = 1.0 / (y[i] * y[i]);
    sw += w;
    swx += w * x[i];
    swxx += w * x[i] * x[i];
    swy += w * y[i];
    swxy += w * x[i] * y[i];
    ++used;
  }
  if (used < 2 || !distinct) return false;
  const double det = sw * swxx - swx * swx;
  if (det == 0) return false;
  a = (swy * swxx - swx * swxy) / det;
  b = (sw * swxy - swx * swy) / det;
  return true;
}

}  // namespace relay::measure
