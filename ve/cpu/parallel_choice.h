// ParallelChoice: whether a kernel that may be cut runs on one thread or on all, learned per
// kernel and size from the time of its own launches.
//
// Waking idle OpenMP threads costs tens of microseconds on a VM (passive wait: a futex wake and
// a schedule per thread), and two virtual cores may share one physical core's memory bandwidth:
// a stencil sweep over 34,000 doubles ran in 8 us on one thread and 16 us on two, one over a
// million in 235 us and 337 us, one over three million in 1.3 ms and 0.67 ms (the 2-core
// development VM). No fixed size threshold is right on every machine and kernel, so each
// kernel's launches of kParallelMin elements or more measure, per size class (the power of two
// of the elements): the first kTrials launches of a class run on all threads; where they took
// kProbeSeconds or more, the class stays there (waking threads is then noise, and a trial on
// one thread would cost as much again); else the next kTrials run on one thread, and from then
// on each launch takes the way of the lower running mean time per element, every kRecheck-th
// launch of the class the other way (at most 1/32 of the launches), so a change of load or of
// the data's cache residence is followed. Deterministic for a given sequence of timings.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <limits>

namespace hassium::cpu {

class ParallelChoice {
public:
  static constexpr int kTrials = 2;
  static constexpr uint32_t kRecheck = 32;
  static constexpr double kProbeSeconds = 2e-3;

  // Whether this launch of `elements` elements (>= kParallelMin) should run on all threads.
  bool parallel(int64_t elements) {
    Class& c = classes_[class_of(elements)];
    ++c.launches;
    if (c.runs[1] < kTrials) return true;
    if (c.runs[0] < kTrials) return c.mean[1] * double(elements) >= kProbeSeconds;
    const bool better = c.mean[1] < c.mean[0];
    return c.launches % kRecheck == 0 ? !better : better;
  }

  // The time of a launch of `elements` elements that ran as `parallel` says.
  void record(int64_t elements, bool parallel, double seconds) {
    Class& c = classes_[class_of(elements)];
    const int m = parallel ? 1 : 0;
    const double per = seconds / double(elements > 0 ? elements : 1);
    c.mean[m] = c.runs[m] == 0 ? per : 0.75 * c.mean[m] + 0.25 * per;
    if (c.runs[m] < std::numeric_limits<uint16_t>::max()) ++c.runs[m];
  }

private:
  struct Class {
    double mean[2] = {0, 0}; // running mean seconds per element: one thread, all threads
    uint16_t runs[2] = {0, 0};
    uint32_t launches = 0;
  };
  // floor(log2(elements)), for elements >= 1 (64 classes cover every int64).
  static size_t class_of(int64_t elements) {
    return size_t(std::bit_width(uint64_t(elements > 0 ? elements : 1))) - 1;
  }
  static constexpr size_t kClasses = 64;
  std::array<Class, kClasses> classes_{};
};

} // namespace hassium::cpu
