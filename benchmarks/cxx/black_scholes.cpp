// Black-Scholes: price N European call options at I successive maturities and average them;
// hassium::array vs plain loops (the same formulas as benchmarks/python/black_scholes.py).
//
// --size N*I: options, maturities. Both versions print the mean price over the maturities.
#include <cmath>

#include <hassium/hassium.h>

#include "bench.h"

namespace {
constexpr double kRate = 0.02, kVol = 0.3;

// Standard normal CDF, Abramowitz & Stegun 26.2.17 (absolute error < 7.5e-8), branch-free:
// 0.5 + sign(d) (Phi(|d|) - 0.5).
double cnd(double d) {
  double k = 1.0 / (1.0 + 0.2316419 * std::abs(d));
  double poly = k * (0.319381530 +
                     k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
  double upper = 1.0 - 0.3989422804014327 * std::exp(-0.5 * d * d) * poly;
  double sign = double((d > 0) - (d < 0));
  return 0.5 + sign * (upper - 0.5);
}

hassium::array<double> cnd(const hassium::array<double>& d) {
  auto k = 1.0 / (1.0 + 0.2316419 * hassium::abs(d));
  auto poly = k * (0.319381530 +
                   k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429))));
  auto upper = 1.0 - 0.3989422804014327 * hassium::exp(-0.5 * d * d) * poly;
  return 0.5 + hassium::sign(d) * (upper - 0.5);
}

double maturity(long it, long iterations) {
  return 0.1 + 2.0 * double(it + 1) / double(iterations);
}

double plain(const std::vector<double>& spot, const std::vector<double>& strike, long iterations) {
  double total = 0;
  const double n = double(spot.size());
  for (long it = 0; it < iterations; ++it) {
    const double t = maturity(it, iterations), sqrt_t = std::sqrt(t);
    const double discount = std::exp(-kRate * t);
    double sum = 0;
    for (size_t i = 0; i < spot.size(); ++i) {
      double d1 =
          (std::log(spot[i] / strike[i]) + (kRate + 0.5 * kVol * kVol) * t) / (kVol * sqrt_t);
      double d2 = d1 - kVol * sqrt_t;
      sum += spot[i] * cnd(d1) - strike[i] * discount * cnd(d2);
    }
    total += sum / n;
  }
  return total / double(iterations);
}

double with_hassium(const std::vector<double>& spot_v, const std::vector<double>& strike_v,
                    long iterations) {
  const long n = long(spot_v.size());
  hassium::array<double> spot({n}, spot_v), strike({n}, strike_v);
  hassium::array<double> total = hassium::zeros<double>({});
  for (long it = 0; it < iterations; ++it) {
    const double t = maturity(it, iterations), sqrt_t = std::sqrt(t);
    const double discount = std::exp(-kRate * t);
    auto d1 = (hassium::log(spot / strike) + (kRate + 0.5 * kVol * kVol) * t) / (kVol * sqrt_t);
    auto d2 = d1 - kVol * sqrt_t;
    auto price = spot * cnd(d1) - strike * discount * cnd(d2);
    total += hassium::sum(price) / double(n); // stays lazy: one flush at the end
  }
  return total.item() / double(iterations);
}
} // namespace

int main(int argc, char** argv) {
  std::vector<long> size = bench::parse_size(argc, argv, "N*I", "4000000*10");
  const long n = size[0], iterations = size[1];
  std::vector<double> spot, strike;
  for (long k = 0; k < n; ++k) {
    spot.push_back(40.0 + 30.0 * (0.5 + 0.5 * std::sin(double(k) * 0.1234)));
    strike.push_back(50.0 + 10.0 * std::cos(double(k) * 0.0377));
  }
  with_hassium(std::vector<double>(spot.begin(), spot.begin() + 1000),
               std::vector<double>(strike.begin(), strike.begin() + 1000), iterations); // warm-up
  double p = 0, h = 0;
  bench::Times t = bench::best_times(
      argc, argv, [&] { p = plain(spot, strike, iterations); },
      [&] { h = with_hassium(spot, strike, iterations); });
  std::printf("plain    mean call price %.10f\n", p);
  std::printf("hassium  mean call price %.10f\n", h);
  bench::report("black_scholes", t);
  return std::abs(p - h) <= 1e-9 * std::abs(p) ? 0 : 1;
}
