// An outside program built against the installed hassium package: a small computation checked
// against a plain loop. Prints "consumer ok" and exits 0 when they agree.
#include <cmath>
#include <cstdio>
#include <vector>

#include <hassium/hassium.h>

int main() {
  const int64_t n = 1000;
  hassium::array<double> x = hassium::linspace(0.0, 1.0, n);
  hassium::array<double> y = hassium::sin(x) * 2.0 + x * x;
  y(hassium::slice(0, 10)) = 0.0;
  double total = hassium::sum(y).item();

  double want = 0;
  for (int64_t i = 10; i < n; ++i) {
    double xi = i == n - 1 ? 1.0 : double(i) * (1.0 / double(n - 1));
    want += std::sin(xi) * 2.0 + xi * xi;
  }
  if (std::abs(total - want) > 1e-9 * std::abs(want)) {
    std::printf("consumer: sum %.17g, expected %.17g\n", total, want);
    return 1;
  }
  try {
    (void)(x + hassium::zeros<double>({3}));
    std::printf("consumer: no error for mismatched shapes\n");
    return 1;
  } catch (const hassium::error& e) {
    std::printf("consumer: caught as expected: %s\n", e.what());
  }
  std::printf("consumer ok\n");
  return 0;
}
