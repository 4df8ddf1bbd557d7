// DurationHistogram (quantiles of many short events at a fixed cost) and seconds_since: the
// timing pieces engines keep, apart from the profile's counter list (core/profile.h) so that a
// new counter does not recompile every engine.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>

namespace hassium {

// Seconds from t0 to now on the steady clock: every timing the profile reports is taken so.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A histogram of durations (10 us .. ~2.6 s in buckets a factor 2^(1/4) apart, ~9% wide), for
// quantiles of many short events (per-kernel compile times) at a fixed, small cost.
struct DurationHistogram {
  static constexpr int kBuckets = 73; // the last: everything longer
  std::array<int64_t, kBuckets> counts{};
  int64_t total = 0;

  void add(double seconds, int64_t n = 1);
  DurationHistogram& operator+=(const DurationHistogram& o);
  // The duration below which a fraction q of the events fall (a bucket's geometric middle);
  // 0 when there are none.
  double quantile(double q) const;
};

} // namespace hassium
