// Profiling counters: sum, rates and the printed report, the counters from HS_PROFILE_COUNTERS.
#include "core/profile.h"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <sstream>

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

void keep_slowest(std::vector<KernelTime>& kernels, size_t n) {
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const KernelTime& a, const KernelTime& b) { return a.seconds > b.seconds; });
  if (kernels.size() > n) kernels.resize(n);
}

ProfileCounters& ProfileCounters::operator+=(const ProfileCounters& o) {
  int64_t peak = std::max(peak_bytes, o.peak_bytes);
#define HS_X(field, type, label) field += o.field;
  HS_PROFILE_COUNTERS(HS_X)
#undef HS_X
  peak_bytes = peak; // a high-water mark: the larger, not the sum
  slowest_kernels.insert(slowest_kernels.end(), o.slowest_kernels.begin(), o.slowest_kernels.end());
  keep_slowest(slowest_kernels, kMaxSlowestKernels);
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
#define HS_X(field, type, label) line(label, c.field);
  HS_PROFILE_COUNTERS(HS_X)
#undef HS_X
  line("merge-cache hit rate",
       percent(double(c.merge_cache_hits), double(c.merge_cache_hits + c.merge_cache_misses)));
  double kernel_hits = double(c.kernel_memory_hits + c.kernel_disk_hits);
  line("kernel-cache hit rate", percent(kernel_hits, kernel_hits + double(c.kernels_compiled)));
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
