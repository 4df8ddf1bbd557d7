// run_sorting: stable sorts and binary searches per lane, in NumPy's order (NaN last).
#include "ve/cpu/sorting.h"

#include <algorithm>
#include <complex>
#include <cstdint>
#include <numeric>
#include <vector>

#include "core/error.h"
#include "ve/cpu/openmp.h"

namespace hassium::cpu {

namespace {
constexpr int64_t kParallelElements = 1 << 16; // lanes run in parallel from this many elements

template <typename T> struct is_complex_t : std::false_type {};
template <typename R> struct is_complex_t<std::complex<R>> : std::true_type {};

// NumPy's order: a < b, and every number before NaN (NaNs equal among themselves); complex
// numbers by real part, then imaginary part, NaN parts last (R + Rj, R + nanj, nan + Rj,
// nan + nanj: numpy/_core/src/npysort's CFLOAT_LT).
template <typename T> bool less(T a, T b) {
  if constexpr (is_complex_t<T>::value) {
    const auto ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
    if (ar < br) return ai == ai || bi != bi;
    if (ar > br) return bi != bi && ai == ai;
    if (ar == br || (ar != ar && br != br)) return ai < bi || (bi != bi && ai == ai);
    return br != br;
  } else if constexpr (std::is_floating_point_v<T>) {
    return a < b || (b != b && a == a);
  } else {
    return a < b;
  }
}

template <typename T> T* data_of(const View& v) {
  return static_cast<T*>(v.base->data) + v.offset;
}

// The offsets (in elements) of the first element of every lane of `v` along `axis`, for the
// lanes in row-major order of the other dimensions.
std::vector<int64_t> lane_starts(const View& v, int axis) {
  std::vector<int64_t> starts{0};
  for (int d = 0; d < v.ndim(); ++d) {
    if (d == axis) continue;
    std::vector<int64_t> next;
    next.reserve(starts.size() * size_t(v.shape[size_t(d)]));
    for (int64_t s : starts)
      for (int64_t i = 0; i < v.shape[size_t(d)]; ++i) next.push_back(s + i * v.stride[size_t(d)]);
    starts = std::move(next);
  }
  return starts;
}

// What the lanes of one SORT / ARGSORT share.
template <typename T> struct Lanes {
  const Instruction* in;
  int axis;
  std::vector<int64_t> out_starts, in_starts;
};

// Sorts lane `l`: the input's elements (copied first: the output may be the input itself).
template <typename T> void sort_lane(const Lanes<T>& k, int64_t l) {
  const View &out = k.in->view(0), &src = k.in->view(1);
  const int64_t n = src.shape[size_t(k.axis)];
  const int64_t si = src.stride[size_t(k.axis)], so = out.stride[size_t(k.axis)];
  const T* x = data_of<T>(src) + k.in_starts[size_t(l)];
  std::vector<T> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = x[i * si];
  if (k.in->op == Opcode::SORT) {
    std::stable_sort(v.begin(), v.end(), less<T>);
    T* y = data_of<T>(out) + k.out_starts[size_t(l)];
    for (int64_t i = 0; i < n; ++i) y[i * so] = v[size_t(i)];
    return;
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return less<T>(v[size_t(a)], v[size_t(b)]); });
  int64_t* y = data_of<int64_t>(out) + k.out_starts[size_t(l)];
  for (int64_t i = 0; i < n; ++i) y[i * so] = order[size_t(i)];
}

template <typename T> void sort_lanes(const Instruction& in, int threads) {
  const int axis = int(in.axis());
  Lanes<T> k{&in, axis, lane_starts(in.view(0), axis), lane_starts(in.view(1), axis)};
  const auto lanes = int64_t(k.in_starts.size());
  if (in.view(1).size() == 0) return;
  if (lanes > 1 && threads > 1 && in.view(1).size() >= kParallelElements) {
    openmp_parallel_for(
        lanes, threads,
        [](void* ctx, int64_t l) { sort_lane(*static_cast<const Lanes<T>*>(ctx), l); }, &k);
    return;
  }
  for (int64_t l = 0; l < lanes; ++l) sort_lane(k, l);
}

// SEARCHSORTED: a binary search in the sorted 1-d view for every element of the values.
template <typename T> void search(const Instruction& in) {
  const View &out = in.view(0), &a = in.view(1), &v = in.view(2);
  const int64_t n = a.shape[0], sa = a.stride[0];
  const T* base = data_of<T>(a);
  const bool right = in.op == Opcode::SEARCHSORTED_RIGHT;
  auto position = [&](T x) {
    int64_t lo = 0, hi = n; // the first p with a[p] >= x (left) or a[p] > x (right)
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      const T m = base[mid * sa];
      if (right ? !less<T>(x, m) : less<T>(m, x))
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo;
  };
  const int nd = v.ndim();
  std::vector<int64_t> idx(size_t(nd), 0);
  if (v.size() == 0) return;
  const T* values = data_of<T>(v);
  int64_t* y = data_of<int64_t>(out);
  for (int64_t done = 0, total = v.size(); done < total; ++done) {
    int64_t vo = 0, oo = 0;
    for (int d = 0; d < nd; ++d) {
      vo += idx[size_t(d)] * v.stride[size_t(d)];
      oo += idx[size_t(d)] * out.stride[size_t(d)];
    }
    y[oo] = position(values[vo]);
    for (int d = nd - 1; d >= 0 && ++idx[size_t(d)] == v.shape[size_t(d)]; --d) idx[size_t(d)] = 0;
  }
}

template <typename T> void run_typed(const Instruction& in, int threads) {
  if (in.op == Opcode::SORT || in.op == Opcode::ARGSORT)
    sort_lanes<T>(in, threads);
  else
    search<T>(in);
}
} // namespace

void run_sorting(const Instruction& in, int threads) {
  switch (in.dtype(1)) {
  case DType::BOOL:
    return run_typed<uint8_t>(in, threads); // (stored as 0 and 1)
  case DType::INT8:
    return run_typed<int8_t>(in, threads);
  case DType::INT16:
    return run_typed<int16_t>(in, threads);
  case DType::INT32:
    return run_typed<int32_t>(in, threads);
  case DType::INT64:
    return run_typed<int64_t>(in, threads);
  case DType::UINT8:
    return run_typed<uint8_t>(in, threads);
  case DType::UINT16:
    return run_typed<uint16_t>(in, threads);
  case DType::UINT32:
    return run_typed<uint32_t>(in, threads);
  case DType::UINT64:
    return run_typed<uint64_t>(in, threads);
  case DType::FLOAT32:
    return run_typed<float>(in, threads);
  case DType::FLOAT64:
    return run_typed<double>(in, threads);
  case DType::COMPLEX64:
    return run_typed<std::complex<float>>(in, threads);
  case DType::COMPLEX128:
    return run_typed<std::complex<double>>(in, threads);
  default:
    break;
  }
  HS_INTERNAL_ASSERT(false) << op_name(in.op) << " on " << dtype_name(in.dtype(1));
}

} // namespace hassium::cpu
