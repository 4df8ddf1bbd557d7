// Making hassium::arrays: zeros, ones, full, empty (and *_like), arange, linspace, random
// numbers (Philox, reproducible from a seed on every machine), broadcast_to.
#pragma once

#include <concepts>

#include "hassium/array.h"

namespace hassium {

template <element T> array<T> full(const shape_type& shape, T value) {
  return array<T>(detail::full(dtype_of<T>, shape, detail::typed_scalar(value)));
}
template <element T> array<T> zeros(const shape_type& shape) {
  return full<T>(shape, T(0));
}
template <element T> array<T> ones(const shape_type& shape) {
  return full<T>(shape, T(1));
}
// Uninitialized in NumPy; here it reads as zeros until written (and costs no instruction).
template <element T> array<T> empty(const shape_type& shape) {
  return array<T>(detail::make(dtype_of<T>, shape));
}
template <element T> array<T> zeros_like(const array<T>& a) {
  return zeros<T>(a.shape());
}
template <element T> array<T> ones_like(const array<T>& a) {
  return ones<T>(a.shape());
}
template <element T> array<T> empty_like(const array<T>& a) {
  return empty<T>(a.shape());
}
template <element T> array<T> full_like(const array<T>& a, T value) {
  return full<T>(a.shape(), value);
}

// start, start + step, ... below stop (above it for negative steps), as NumPy's arange.
template <element T>
requires(!std::same_as<T, bool> && !is_std_complex<T>::value) array<T> arange(T start, T stop,
                                                                              T step = T(1)) {
  return array<T>(detail::arange(dtype_of<T>, detail::typed_scalar(start),
                                 detail::typed_scalar(stop), detail::typed_scalar(step)));
}
template <element T>
requires(!std::same_as<T, bool> && !is_std_complex<T>::value) array<T> arange(T stop) {
  return arange<T>(T(0), stop, T(1));
}

// num values evenly spaced from start to stop (stop included when endpoint), computed in
// float64 as NumPy does, floored for integer types.
template <element T = double>
requires(!is_std_complex<T>::value) array<T> linspace(double start, double stop, int64_t num,
                                                      bool endpoint = true) {
  return array<T>(detail::linspace(dtype_of<T>, start, stop, num, endpoint));
}

// Uniform floats in [0, 1): the stream of (seed, counter 0), the same on every machine.
template <std::floating_point T = double> array<T> random(const shape_type& shape, uint64_t seed) {
  return array<T>(detail::random_uniform(dtype_of<T>, shape, seed, 0));
}
// The same from the process-wide stream (hassium::seed sets it; each call continues it).
template <std::floating_point T = double> array<T> random(const shape_type& shape) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  auto [seed, counter] = detail::next_random_stream(n);
  return array<T>(detail::random_uniform(dtype_of<T>, shape, seed, counter));
}
// Uniform integers in [low, high).
template <std::integral T>
requires(!std::same_as<T, bool>) array<T> randint(const shape_type& shape, int64_t low,
                                                  int64_t high, uint64_t seed) {
  return array<T>(detail::random_integers(dtype_of<T>, shape, low, high, seed, 0));
}
template <std::integral T>
requires(!std::same_as<T, bool>) array<T> randint(const shape_type& shape, int64_t low,
                                                  int64_t high) {
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  auto [seed, counter] = detail::next_random_stream(n);
  return array<T>(detail::random_integers(dtype_of<T>, shape, low, high, seed, counter));
}
// Restarts the process-wide random stream at (seed, counter 0).
inline void seed(uint64_t s) {
  detail::set_random_seed(s);
}

// A read-only view of a with the given shape (NumPy broadcasting rules; stride 0 where a has
// extent 1 or lacks the axis). Writing into it is a hassium::error.
template <element T> array<T> broadcast_to(const array<T>& a, const shape_type& shape) {
  return array<T>(detail::broadcast_to(a.node(), shape));
}

} // namespace hassium
