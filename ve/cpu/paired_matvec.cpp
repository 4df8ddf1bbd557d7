// Paired matrix-vector products: one pass over a shared matrix for two products.
#include "ve/cpu/paired_matvec.h"

#include <algorithm>
#include <cstring>

#include "ve/cpu/openmp.h"

namespace hassium::cpu {

std::optional<Matvec> matvec_of(const Instruction& in) {
  if (in.op != Opcode::MATMUL || !in.is_view(0) || !in.is_view(1) || !in.is_view(2))
    return std::nullopt;
  const View &out = in.view(0), &a = in.view(1), &b = in.view(2);
  if (out.dtype() != DType::FLOAT64 || a.dtype() != DType::FLOAT64 || b.dtype() != DType::FLOAT64 ||
      out.ndim() != 2 || a.ndim() != 2 || b.ndim() != 2)
    return std::nullopt;
  Matvec p;
  if (b.shape[1] == 1 && a.shape[0] > 1 && a.shape[1] > 1 && b.shape[0] == a.shape[1]) {
    p = {Matvec::Kind::ROW_DOTS, &a, &b, &out};
  } else if (a.shape[0] == 1 && b.shape[0] > 1 && b.shape[1] > 1 && a.shape[1] == b.shape[0]) {
    p = {Matvec::Kind::COLUMN_SUMS, &b, &a, &out};
  } else {
    return std::nullopt;
  }
  return p;
}

namespace {

int64_t result_length(const Matvec& p) {
  return p.kind == Matvec::Kind::ROW_DOTS ? p.matrix->shape[0] : p.matrix->shape[1];
}

// The vector's elements, contiguous.
std::vector<double> gather(const View& v) {
  const int64_t n = v.shape[0] == 1 ? v.shape[1] : v.shape[0];
  const int64_t step = v.shape[0] == 1 ? v.stride[1] : v.stride[0];
  const double* p = static_cast<const double*>(v.base->data) + v.offset;
  std::vector<double> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[size_t(i)] = p[i * step];
  return out;
}

// What one run of rows needs: the matrix, the two products' vectors, the dot products' results
// and the column sums' partial sums of this run.
struct Pass {
  const double* m;
  int64_t ld, cols;
  const double* dot_v[2]; // ROW_DOTS: v (cols)
  double* dot_out[2];     // ROW_DOTS: the result (one per row)
  const double* sum_u[2]; // COLUMN_SUMS: u (one per row)
  double* sum_out[2];     // COLUMN_SUMS: this run's partial sums (cols)
};

// Rows [lo, hi) for D dot products and S column sums (D + S = 2). Each dot product sums in four
// lanes (element j into lane j % 4), then (lane 0 + lane 1) + (lane 2 + lane 3).
template <int D, int S>
inline __attribute__((always_inline)) void rows_core(const Pass& p, int64_t lo, int64_t hi) {
  const int64_t c4 = p.cols & ~int64_t(3);
  for (int64_t i = lo; i < hi; ++i) {
    const double* row = p.m + i * p.ld;
    double acc[2][4] = {};
    double w[2] = {};
    for (int s = 0; s < S; ++s) w[s] = p.sum_u[s][i];
    for (int64_t j = 0; j < c4; j += 4) {
      const double a0 = row[j], a1 = row[j + 1], a2 = row[j + 2], a3 = row[j + 3];
      for (int d = 0; d < D; ++d) {
        const double* v = p.dot_v[d] + j;
        acc[d][0] += a0 * v[0];
        acc[d][1] += a1 * v[1];
        acc[d][2] += a2 * v[2];
        acc[d][3] += a3 * v[3];
      }
      for (int s = 0; s < S; ++s) {
        double* o = p.sum_out[s] + j;
        o[0] += w[s] * a0;
        o[1] += w[s] * a1;
        o[2] += w[s] * a2;
        o[3] += w[s] * a3;
      }
    }
    for (int64_t j = c4; j < p.cols; ++j) {
      for (int d = 0; d < D; ++d) acc[d][j - c4] += row[j] * p.dot_v[d][j];
      for (int s = 0; s < S; ++s) p.sum_out[s][j] += w[s] * row[j];
    }
    for (int d = 0; d < D; ++d) p.dot_out[d][i] = (acc[d][0] + acc[d][1]) + (acc[d][2] + acc[d][3]);
  }
}

template <int D, int S> void rows_generic(const Pass& p, int64_t lo, int64_t hi) {
  rows_core<D, S>(p, lo, hi);
}

template <int D, int S>
__attribute__((target("avx2,fma"))) void rows_avx2(const Pass& p, int64_t lo, int64_t hi) {
  rows_core<D, S>(p, lo, hi);
}

using RowsFn = void (*)(const Pass&, int64_t, int64_t);

RowsFn rows_for(int dots) {
  static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  switch (dots) {
  case 2:
    return avx2 ? rows_avx2<2, 0> : rows_generic<2, 0>;
  case 1:
    return avx2 ? rows_avx2<1, 1> : rows_generic<1, 1>;
  default:
    return avx2 ? rows_avx2<0, 2> : rows_generic<0, 2>;
  }
}

} // namespace

bool pairable(const Matvec& first, const Matvec& second) {
  const View& m = *first.matrix;
  // (An input the VEM has not given memory yet, as a base first read by the second block and
  // never written, zero-filled only when that block runs, keeps the products apart.)
  if (!m.identical(*second.matrix) || !m.base->data || !first.vector->base->data ||
      !second.vector->base->data || m.stride[1] != 1 || m.stride[0] < m.shape[1])
    return false;
  for (const Matvec* p : {&first, &second})
    for (const View* in : {first.matrix, first.vector, second.vector})
      if (overlaps(*p->out, *in)) return false;
  return !overlaps(*first.out, *second.out);
}

void run_paired(const Matvec& first, const Matvec& second, int threads,
                std::vector<double>& second_result) {
  const View& m = *first.matrix;
  const int64_t rows = m.shape[0], cols = m.shape[1];
  const Matvec* products[2] = {&first, &second};
  std::vector<double> vectors[2] = {gather(*first.vector), gather(*second.vector)};
  std::vector<double> first_result(size_t(result_length(first)));
  second_result.assign(size_t(result_length(second)), 0.0);
  std::vector<double>* results[2] = {&first_result, &second_result};

  // Runs of rows: one per thread (at least 64 rows each); each run sums its columns apart.
  const int64_t runs = std::max<int64_t>(1, std::min<int64_t>(threads, rows / 64));
  int dots = 0, sums = 0;
  int dot_of[2], sum_of[2]; // product -> its slot among the dots or the sums
  for (int k = 0; k < 2; ++k) {
    if (products[k]->kind == Matvec::Kind::ROW_DOTS)
      dot_of[k] = dots++;
    else
      sum_of[k] = sums++;
  }
  std::vector<double> partial(size_t(runs * sums * cols), 0.0);
  std::vector<Pass> passes(static_cast<size_t>(runs));
  for (int64_t r = 0; r < runs; ++r) {
    Pass& p = passes[size_t(r)];
    p.m = static_cast<const double*>(m.base->data) + m.offset;
    p.ld = m.stride[0];
    p.cols = cols;
    for (int k = 0; k < 2; ++k) {
      if (products[k]->kind == Matvec::Kind::ROW_DOTS) {
        p.dot_v[dot_of[k]] = vectors[k].data();
        p.dot_out[dot_of[k]] = results[k]->data();
      } else {
        p.sum_u[sum_of[k]] = vectors[k].data();
        p.sum_out[sum_of[k]] = partial.data() + size_t((r * sums + sum_of[k]) * cols);
      }
    }
  }
  struct Ctx {
    const std::vector<Pass>& passes;
    RowsFn fn;
    int64_t rows, runs;
  } ctx{passes, rows_for(dots), rows, runs};
  openmp_parallel_for(
      runs, threads,
      [](void* c, int64_t r) {
        const Ctx& x = *static_cast<const Ctx*>(c);
        x.fn(x.passes[size_t(r)], x.rows * r / x.runs, x.rows * (r + 1) / x.runs);
      },
      &ctx);
  // The column sums: the runs' partial sums in run order.
  for (int k = 0; k < 2; ++k) {
    if (products[k]->kind != Matvec::Kind::COLUMN_SUMS) continue;
    double* out = results[k]->data();
    for (int64_t r = 0; r < runs; ++r) {
      const double* part = partial.data() + size_t((r * sums + sum_of[k]) * cols);
      if (r == 0)
        std::memcpy(out, part, size_t(cols) * sizeof(double));
      else
        for (int64_t j = 0; j < cols; ++j) out[j] += part[j];
    }
  }
  write_result(first, first_result);
}

void write_result(const Matvec& product, const std::vector<double>& result) {
  const View& out = *product.out;
  const int64_t step = out.shape[0] == 1 ? out.stride[1] : out.stride[0];
  double* p = static_cast<double*>(out.base->data) + out.offset;
  for (size_t i = 0; i < result.size(); ++i) p[int64_t(i) * step] = result[i];
}

} // namespace hassium::cpu
