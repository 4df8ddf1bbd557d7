// N-body: leapfrog steps of N gravitating bodies with all-pairs softened forces; hassium::array
// (the (N, N) pair arrays, reduced along rows) vs plain loops. The formulas are those of
// benchmarks/python/nbody.py.
//
// --size N*I: bodies, time steps. Both versions print a checksum (sum of |x|^2 + |v|^2).
#include <array>
#include <cmath>

#include <hassium/hassium.h>

#include "bench.h"

namespace {
constexpr double kSoftening2 = 0.01, kDt = 0.001;
using Vec3 = std::array<std::vector<double>, 3>;

// A slowly rotating ball: bodies on a Fibonacci spiral with radii in [0.5, 1), total mass ~1.
void initial_state(long n, Vec3& pos, Vec3& vel, std::vector<double>& mass) {
  for (auto& v : pos) v.assign(size_t(n), 0);
  for (auto& v : vel) v.assign(size_t(n), 0);
  mass.assign(size_t(n), 0);
  for (long i = 0; i < n; ++i) {
    double k = double(i), z = 1.0 - (2.0 * k + 1.0) / double(n), ring = std::sqrt(1.0 - z * z);
    double phi = 2.399963229728653 * k;
    double radius = 0.5 + 0.5 * (0.6180339887498949 * k - std::floor(0.6180339887498949 * k));
    size_t s = size_t(i);
    pos[0][s] = radius * ring * std::cos(phi);
    pos[1][s] = radius * ring * std::sin(phi);
    pos[2][s] = radius * z;
    vel[0][s] = -0.3 * pos[1][s];
    vel[1][s] = 0.3 * pos[0][s];
    vel[2][s] = 0.05 * std::sin(3.0 * k);
    mass[s] = (1.0 + 0.5 * std::sin(k)) / double(n);
  }
}

// a_i = sum_j m_j (x_j - x_i) / (|x_j - x_i|^2 + eps^2)^(3/2).
Vec3 plain_acceleration(const Vec3& pos, const std::vector<double>& mass) {
  const size_t n = mass.size();
  Vec3 acc;
  for (auto& a : acc) a.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    double ax = 0, ay = 0, az = 0;
    for (size_t j = 0; j < n; ++j) {
      double dx = pos[0][j] - pos[0][i], dy = pos[1][j] - pos[1][i], dz = pos[2][j] - pos[2][i];
      double r2 = dx * dx + dy * dy + dz * dz + kSoftening2;
      double w = mass[j] / (r2 * std::sqrt(r2));
      ax += dx * w, ay += dy * w, az += dz * w;
    }
    acc[0][i] = ax, acc[1][i] = ay, acc[2][i] = az;
  }
  return acc;
}

double plain(long n, long steps) {
  Vec3 pos, vel;
  std::vector<double> mass;
  initial_state(n, pos, vel, mass);
  Vec3 acc = plain_acceleration(pos, mass);
  for (long s = 0; s < steps; ++s) { // kick-drift-kick leapfrog
    for (int c = 0; c < 3; ++c)
      for (long i = 0; i < n; ++i) {
        vel[size_t(c)][size_t(i)] += 0.5 * kDt * acc[size_t(c)][size_t(i)];
        pos[size_t(c)][size_t(i)] += kDt * vel[size_t(c)][size_t(i)];
      }
    acc = plain_acceleration(pos, mass);
    for (int c = 0; c < 3; ++c)
      for (long i = 0; i < n; ++i)
        vel[size_t(c)][size_t(i)] += 0.5 * kDt * acc[size_t(c)][size_t(i)];
  }
  double checksum = 0;
  for (int c = 0; c < 3; ++c)
    for (long i = 0; i < n; ++i)
      checksum += pos[size_t(c)][size_t(i)] * pos[size_t(c)][size_t(i)] +
                  vel[size_t(c)][size_t(i)] * vel[size_t(c)][size_t(i)];
  return checksum;
}

using Arrays3 = std::array<hassium::array<double>, 3>;

Arrays3 acceleration(const Arrays3& pos, const hassium::array<double>& mass) {
  using hassium::_;
  using hassium::newaxis;
  Arrays3 d;
  for (int c = 0; c < 3; ++c)
    d[size_t(c)] = pos[size_t(c)](newaxis, _) - pos[size_t(c)](_, newaxis);
  auto r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + kSoftening2;
  auto w = mass(newaxis, _) / (r2 * hassium::sqrt(r2));
  return {hassium::sum(d[0] * w, 1), hassium::sum(d[1] * w, 1), hassium::sum(d[2] * w, 1)};
}

double with_hassium(long n, long steps) {
  Vec3 p0, v0;
  std::vector<double> m0;
  initial_state(n, p0, v0, m0);
  Arrays3 pos, vel;
  for (int c = 0; c < 3; ++c) {
    pos[size_t(c)] = hassium::array<double>({n}, p0[size_t(c)]);
    vel[size_t(c)] = hassium::array<double>({n}, v0[size_t(c)]);
  }
  hassium::array<double> mass({n}, m0);
  Arrays3 acc = acceleration(pos, mass);
  for (long s = 0; s < steps; ++s) {
    for (int c = 0; c < 3; ++c) {
      vel[size_t(c)] += 0.5 * kDt * acc[size_t(c)];
      pos[size_t(c)] += kDt * vel[size_t(c)];
    }
    acc = acceleration(pos, mass);
    for (int c = 0; c < 3; ++c) vel[size_t(c)] += 0.5 * kDt * acc[size_t(c)];
  }
  hassium::array<double> checksum = hassium::zeros<double>({});
  for (int c = 0; c < 3; ++c)
    checksum += hassium::sum(pos[size_t(c)] * pos[size_t(c)] + vel[size_t(c)] * vel[size_t(c)]);
  return checksum.item();
}
} // namespace

int main(int argc, char** argv) {
  std::vector<long> size = bench::parse_size(argc, argv, "N*I", "3000*10");
  const long n = size[0], steps = size[1];
  with_hassium(64, 1); // warm-up: compiles (or loads) the kernels
  double p = 0, h = 0;
  bench::Times t = bench::best_times(
      argc, argv, [&] { p = plain(n, steps); }, [&] { h = with_hassium(n, steps); });
  std::printf("plain    checksum %.12f\n", p);
  std::printf("hassium  checksum %.12f\n", h);
  bench::report("nbody", t);
  return std::abs(p - h) <= 1e-9 * std::abs(p) ? 0 : 1;
}
