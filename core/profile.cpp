// Profiling counters: sum, rates and the printed report, the counters from HS_PROFILE_COUNTERS.
#include "core/profile.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <string_view>

namespace hassium {

namespace {
double ratio(double num, double den) {
  return den > 0 ? num / den : 0.0;
}

// "83.3% (5 of 6)", or "n/a (none)" when there was nothing to count.
std::string percent(double num, double den) {
  if (den <= 0) return "n/a (none)";
  std::ostringstream os;
  os << std::fixed << std::setprecision(1) << 100 * num / den << "% (" << int64_t(num) << " of "
     << int64_t(den) << ")";
  return os.str();
}
} // namespace

void DurationHistogram::add(double seconds, int64_t n) {
  // Bucket k holds [10 us * 2^((k-1)/4), 10 us * 2^(k/4)); bucket 0 everything shorter.
  int k = seconds <= 1e-5 ? 0 : 1 + int(std::floor(4.0 * std::log2(seconds / 1e-5)));
  counts[size_t(std::clamp(k, 0, kBuckets - 1))] += n;
  total += n;
}

DurationHistogram& DurationHistogram::operator+=(const DurationHistogram& o) {
  for (int k = 0; k < kBuckets; ++k) counts[size_t(k)] += o.counts[size_t(k)];
  total += o.total;
  return *this;
}

double DurationHistogram::quantile(double q) const {
  if (total == 0) return 0;
  const double want = q * double(total);
  int64_t seen = 0;
  for (int k = 0; k < kBuckets; ++k) {
    seen += counts[size_t(k)];
    if (double(seen) >= want && counts[size_t(k)] > 0)
      return k == 0 ? 1e-5 : 1e-5 * std::exp2((double(k) - 0.5) / 4.0);
  }
  return 1e-5 * std::exp2(double(kBuckets - 1) / 4.0);
}

void keep_slowest(std::vector<KernelTime>& kernels, size_t n) {
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const KernelTime& a, const KernelTime& b) { return a.seconds > b.seconds; });
  if (kernels.size() > n) kernels.resize(n);
}

ProfileCounters& ProfileCounters::operator+=(const ProfileCounters& o) {
  int64_t peak = std::max(peak_bytes, o.peak_bytes);
  int64_t device_peak = std::max(device_peak_bytes, o.device_peak_bytes);
  int64_t ranks = std::max(cluster_ranks, o.cluster_ranks);
#define HS_X(field, type, label) field += o.field;
  HS_PROFILE_COUNTERS(HS_X)
#undef HS_X
  peak_bytes = peak; // high-water marks: the larger, not the sum
  device_peak_bytes = device_peak;
  cluster_ranks = ranks;
  slowest_kernels.insert(slowest_kernels.end(), o.slowest_kernels.begin(), o.slowest_kernels.end());
  keep_slowest(slowest_kernels, kMaxSlowestKernels);
  fast_compiles += o.fast_compiles;
  optimized_compiles += o.optimized_compiles;
  return *this;
}

double ProfileCounters::merge_cache_hit_rate() const {
  return ratio(double(merge_cache_hits), double(merge_cache_hits + merge_cache_misses));
}

double ProfileCounters::kernel_cache_hit_rate() const {
  double hits = double(kernel_memory_hits + kernel_disk_hits);
  return ratio(hits, hits + double(kernels_compiled));
}

double ProfileCounters::fused_to_singleton() const {
  return ratio(double(partition_cost), double(singleton_cost));
}

void print_profile(std::ostream& os, const ProfileCounters& c) {
  auto line = [&os](const std::string& label, const auto& value) {
    os << "  " << std::left << std::setw(34) << label + ": " << std::right << value << "\n";
  };
  os << "hassium profile:\n";
  // The GPU engines' and the cluster VEM's counters only where that component ran (a CPU engine
  // on one node prints none of their zeros).
  bool device = false, cluster = false;
#define HS_X(field, type, label)                                                                   \
  device |= std::string_view(#field).starts_with("device_") && c.field != type{};                  \
  cluster |= std::string_view(#field).starts_with("cluster_") && c.field != type{};
  HS_PROFILE_COUNTERS(HS_X)
#undef HS_X
#define HS_X(field, type, label)                                                                   \
  if ((device || !std::string_view(#field).starts_with("device_")) &&                              \
      (cluster || !std::string_view(#field).starts_with("cluster_")))                              \
    line(label, c.field);
  HS_PROFILE_COUNTERS(HS_X)
#undef HS_X
  line("merge-cache hit rate",
       percent(double(c.merge_cache_hits), double(c.merge_cache_hits + c.merge_cache_misses)));
  double kernel_hits = double(c.kernel_memory_hits + c.kernel_disk_hits);
  line("kernel-cache hit rate", percent(kernel_hits, kernel_hits + double(c.kernels_compiled)));
  auto compiles = [&](const char* label, const DurationHistogram& h) {
    if (h.total == 0) return;
    std::ostringstream f;
    f << std::fixed << std::setprecision(2) << "median " << h.quantile(0.5) * 1e3 << " ms, p95 "
      << h.quantile(0.95) * 1e3 << " ms (" << h.total << " kernels)";
    line(label, f.str());
  };
  compiles("compile per kernel, fast tier", c.fast_compiles);
  compiles("compile per kernel, optimized", c.optimized_compiles);
  if (c.singleton_cost > 0) {
    std::ostringstream f;
    f << std::fixed << std::setprecision(3) << c.fused_to_singleton() << " (" << c.partition_cost
      << " / " << c.singleton_cost << ")";
    line("fused / singleton cost", f.str());
  } else {
    line("fused / singleton cost", "n/a (not gathered)");
  }
  if (c.slowest_kernels.empty()) return;
  // The printout keeps to the first kernels and lines; the struct (hassium.profile()) has all.
  constexpr size_t kPrintKernels = 5, kPrintLines = 30;
  os << "  slowest kernels (execution, compilation excluded):\n";
  for (size_t k = 0; k < std::min(c.slowest_kernels.size(), kPrintKernels); ++k) {
    const KernelTime& t = c.slowest_kernels[k];
    os << "  #" << k + 1 << ": " << std::setprecision(6) << t.seconds << " s in " << t.runs
       << (t.runs == 1 ? " run, " : " runs, ") << t.bytes << " bytes moved per run\n";
    std::istringstream text(t.bytecode);
    size_t n = 0;
    for (std::string l; std::getline(text, l); ++n)
      if (n < kPrintLines) os << "      " << l << "\n";
    if (n > kPrintLines)
      os << "      ... " << n - kPrintLines << " more lines (hassium.profile() has them all)\n";
  }
}

} // namespace hassium
