// What the C++ benchmarks share: --size parsing, a wall clock, and the side-by-side report.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace bench {

// The fields of `--size A*B*C` (or `defaults` when absent); exits with a message when malformed.
inline std::vector<long> parse_size(int argc, char** argv, const char* names,
                                    const char* defaults) {
  std::string text = defaults;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--size") == 0) text = argv[i + 1];
  std::vector<long> fields;
  size_t count = 1;
  for (const char* p = names; *p; ++p) count += *p == '*';
  for (size_t pos = 0; pos <= text.size();) {
    size_t end = text.find('*', pos);
    if (end == std::string::npos) end = text.size();
    char* stop = nullptr;
    long v = std::strtol(text.c_str() + pos, &stop, 10);
    if (stop != text.c_str() + end || v < 1) break;
    fields.push_back(v);
    pos = end + 1;
  }
  if (fields.size() != count) {
    std::fprintf(stderr, "--size must be %s (positive integers), got '%s'\n", names, text.c_str());
    std::exit(2);
  }
  return fields;
}

// The value of `--name N` (a positive integer), or `fallback`.
inline long option(int argc, char** argv, const char* name, long fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) {
      long v = std::strtol(argv[i + 1], nullptr, 10);
      if (v < 1) {
        std::fprintf(stderr, "%s must be a positive integer, got '%s'\n", name, argv[i + 1]);
        std::exit(2);
      }
      return v;
    }
  return fallback;
}

inline double seconds(const std::function<void()>& f) {
  auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Times both versions `--repeat R` times (default 3), alternating, and returns the best time of
// each: the best of several runs filters out the interference of other processes on a shared
// machine.
struct Times {
  double plain = 1e300, hassium = 1e300;
  long repeat = 0;
};
inline Times best_times(int argc, char** argv, const std::function<void()>& plain,
                        const std::function<void()>& hassium) {
  Times t;
  t.repeat = option(argc, argv, "--repeat", 3);
  for (long r = 0; r < t.repeat; ++r) {
    t.plain = std::min(t.plain, seconds(plain));
    t.hassium = std::min(t.hassium, seconds(hassium));
  }
  return t;
}

// Prints both timings and their ratio (> 1: hassium is faster).
inline void report(const char* name, const Times& t) {
  std::printf("%s: plain loops %.4f s, hassium %.4f s (best of %ld), speedup (plain / hassium) "
              "%.2fx\n",
              name, t.plain, t.hassium, t.repeat, t.plain / t.hassium);
}

} // namespace bench
