// Generators: arange and linspace (RANGE, then arithmetic), and random numbers from the
// RANDOM opcode's Philox bits turned into uniform floats or integers with bytecode ops.
#include <cmath>
#include <mutex>

#include "bridge/cxx/session.h"
#include "core/error.h"
#include "hassium/types.h"

namespace hassium::detail {

namespace {
// out = out op c, in place.
void update(const node& out, Opcode op, const Scalar& c) {
  record(std::move(instr(op).out(out).in(out).in(c.cast(out.dtype))));
}

// Philox bits: a uint64 array of the shape.
node random_bits(const shape_type& shape, uint64_t seed, uint64_t counter) {
  node bits = make(DType::UINT64, shape);
  if (bits.size() > 0)
    record(std::move(
        instr(Opcode::RANDOM).out(bits).in(Scalar::of_uint(seed)).in(Scalar::of_uint(counter))));
  return bits;
}

std::mutex g_random_mutex;
uint64_t g_seed = 0;
uint64_t g_counter = 0;
} // namespace

node arange(DType t, const Scalar& start, const Scalar& stop, const Scalar& step) {
  int64_t n;
  if (is_integer(t)) {
    // Exact integer arithmetic: ceil((stop - start) / step), never negative.
    __int128 a = is_signed_int(t) ? __int128(start.as_int()) : __int128(start.as_uint());
    __int128 b = is_signed_int(t) ? __int128(stop.as_int()) : __int128(stop.as_uint());
    __int128 s = is_signed_int(t) ? __int128(step.as_int()) : __int128(step.as_uint());
    if (s == 0) HS_USER_ERROR() << "arange: step cannot be zero";
    __int128 span = b - a;
    __int128 q = span / s + ((span % s != 0) && ((span > 0) == (s > 0)) ? 1 : 0);
    n = q > 0 ? int64_t(q) : 0;
  } else {
    double s = step.as_double();
    if (s == 0) HS_USER_ERROR() << "arange: step cannot be zero";
    double len = std::ceil((stop.as_double() - start.as_double()) / s);
    if (!std::isfinite(len)) HS_USER_ERROR() << "arange: the length is not finite";
    n = len > 0 ? int64_t(len) : 0;
  }
  node out = make(t, {n});
  if (n == 0) return out;
  record(std::move(instr(Opcode::RANGE).out(out)));
  if (step.cast(t).as_double() != 1) update(out, Opcode::MULTIPLY, step);
  if (start.cast(t).as_double() != 0) update(out, Opcode::ADD, start);
  return out;
}

// NumPy's linspace: (arange(num) * step + start) in float64, the last element set to stop,
// floored for integer dtypes, then cast.
node linspace(DType t, double start, double stop, int64_t num, bool endpoint) {
  if (num < 0) HS_USER_ERROR() << "linspace: number of samples " << num << " must be non-negative";
  node y = make(DType::FLOAT64, {num});
  if (num == 0) return make(t, {0});
  int64_t div = endpoint ? num - 1 : num;
  record(std::move(instr(Opcode::RANGE).out(y)));
  if (div > 0)
    update(y, Opcode::MULTIPLY, Scalar::of_float((stop - start) / double(div)));
  else
    update(y, Opcode::MULTIPLY, Scalar::of_float(stop - start));
  update(y, Opcode::ADD, Scalar::of_float(start));
  if (endpoint && num > 1) {
    index last[] = {index(num - 1)};
    assign(view(y, last), operand(Scalar::of_float(stop)));
  }
  if (is_integer(t) || t == DType::BOOL) {
    operand ops[] = {operand(y)};
    y = elementwise(Opcode::FLOOR, DType::FLOAT64, ops);
  }
  return t == DType::FLOAT64 ? y : cast(y, t);
}

node random_uniform(DType t, const shape_type& shape, uint64_t seed, uint64_t counter) {
  if (!is_float(t))
    HS_USER_ERROR() << "random: uniform numbers are float32 or float64, not " << dtype_name(t);
  // The top 53 (float64) or 24 (float32) bits as an integer, times 2^-53 (2^-24): uniform in
  // [0, 1), every value exact, 1.0 never reached.
  int mantissa = t == DType::FLOAT64 ? 53 : 24;
  node bits = random_bits(shape, seed, counter);
  node out = make(t, shape);
  if (out.size() == 0) return out;
  update(bits, Opcode::RIGHT_SHIFT, Scalar::of_uint(uint64_t(64 - mantissa)));
  record(std::move(instr(Opcode::IDENTITY).out(out).in(bits)));
  update(out, Opcode::MULTIPLY, Scalar::of_float(std::ldexp(1.0, -mantissa)));
  return out;
}

node random_integers(DType t, const shape_type& shape, int64_t low, int64_t high, uint64_t seed,
                     uint64_t counter) {
  if (!is_integer(t))
    HS_USER_ERROR() << "randint: the element type must be an integer type, not " << dtype_name(t);
  if (high <= low) HS_USER_ERROR() << "randint: low " << low << " must be below high " << high;
  // Bits modulo the span: the bias is at most span / 2^64.
  node bits = random_bits(shape, seed, counter);
  node out = make(t, shape);
  if (out.size() == 0) return out;
  update(bits, Opcode::MOD, Scalar::of_uint(uint64_t(high) - uint64_t(low)));
  record(std::move(instr(Opcode::IDENTITY).out(out).in(bits)));
  if (low != 0) update(out, Opcode::ADD, Scalar::of_int(low));
  return out;
}

std::pair<uint64_t, uint64_t> next_random_stream(int64_t count) {
  std::lock_guard lock(g_random_mutex);
  std::pair<uint64_t, uint64_t> r{g_seed, g_counter};
  g_counter += uint64_t(count);
  return r;
}

void set_random_seed(uint64_t seed) {
  std::lock_guard lock(g_random_mutex);
  g_seed = seed;
  g_counter = 0;
}

} // namespace hassium::detail
