// Statistics of repeated timings: the median and a relative spread, and the rule that decides
// when a measurement has been repeated enough.
//
// Timings on a shared machine have long upper tails (a rank descheduled for a time slice), so
// the centre is the median, not the mean, and the spread is the interquartile range relative to
// the median, which one outlier cannot inflate. A measurement is repeated in batches until that
// spread is under a bound, or a cap on repetitions or seconds is reached; the result says which.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace relay::measure {

/// Median of `samples` (the mean of the two middle values for an even count); 0 if empty.
double median(std::vector<double> samples);
/// Linear-interpolated quantile q in [0, 1] (q = 0.5 is the median); 0 if empty.
double quantile(std::vector<double> samples, double q);
/// (q75 - q25) / median: 0 for fewer than 2 samples or a zero median.
double relative_spread(const std::vector<double>& samples);

/// Head-to-head comparison of configurations measured in interleaved rounds:
/// times[c][r] is configuration c's time in round r (every c has every round). `relative`
/// holds, per configuration, the median over rounds of its time relative to the round's median
/// over all configurations; `reference` is the median over rounds of those round medians, so
/// relative[c] * reference reads as a time. A machine whose speed drifts between rounds
/// (memory bandwidth shared with other tenants, frequency) slows every configuration of a
/// round alike, so the ratios cancel what a median of raw times keeps. Empty if no rounds.
struct Paired {
  std::vector<double> relative;
  double reference = 0;
};
Paired paired_relative(const std::vector<std::vector<double>>& times);

/// Runs `measure(c)` for every configuration c < count in each of `rounds` rounds, each round
/// in its own shuffled order (the same for the same seed, so every rank of a communicator
/// agrees); returns times[c][r].
std::vector<std::vector<double>> interleaved_rounds(
    std::size_t count, int rounds, unsigned seed,
    const std::function<double(std::size_t)>& measure);

/// When to stop repeating.
struct StopRule {
  std::size_t min_samples = 5;    ///< never fewer
  std::size_t max_samples = 200;  ///< cap on repetitions
  double max_spread = 0.05;       ///< stop once relative_spread <= this
  double max_seconds = 2.0;       ///< cap on the summed sample time
};

/// A finished measurement.
struct Summary {
  double median_s = 0;
  double min_s = 0;
  double spread = 0;  ///< relative_spread of the samples
  std::size_t samples = 0;
  double total_s = 0;      ///< sum of the samples (time spent measuring)
  bool stable = false;     ///< the spread bound was met (not a cap)
  std::string stopped_by;  ///< "spread", "samples" or "seconds"
};

/// Accumulates samples and applies a StopRule.
class Sampler {
 public:
  explicit Sampler(StopRule rule) : rule_(rule) {}
  void add(double seconds);
  /// True once the rule says stop.
  bool done() const;
  Summary summary() const;
  const std::vector<double>& samples() const { return samples_; }

 private:
  StopRule rule_;
  std::vector<double> samples_;
  double total_s_ = 0;
};

/// Least-squares fit of y = a + b x minimising the *relative* error sum ((y_i - a - b x_i)/y_i)^2,
/// so that small messages (microseconds) weigh as much as large ones (milliseconds). Points with
/// y <= 0 are ignored. Returns false if fewer than two usable distinct x.
bool fit_line_relative(const std::vector<double>& x, const std::vector<double>& y, double& a,
                       double& b);

}  // namespace relay::measure
