// The helpers every generated kernel starts with (after the dialect's macros): complex types and
// arithmetic, NumPy's division rules, x86-exact float->int conversions, Philox2x32-10, the error
// record. The same semantics as the CPU engine's ops (ve/cpu/ops_*.cpp), written once in the
// subset of C both OpenCL C 1.2 and CUDA C++ accept.
#include "ve/gpu/prelude.h"

namespace hassium::gpu {

const char* shared_prelude() {
  return R"(
// ---- shared helpers (ve/gpu/prelude.cpp) ----
typedef struct { hs_f32 re, im; } hs_c64;
typedef struct { hs_f64 re, im; } hs_c128;
#define HS_I64_MIN ((hs_i64)((hs_u64)1 << 63))
#define HS_I32_MIN ((hs_i32)(-2147483647 - 1))

// The error record: [0] code (the first error wins), [1] the opcode, [2..3] value, [4..5] bound
// (low word first).
HS_FN void hs_error(HS_GLOBAL hs_i32* err, hs_i32 code, hs_i32 op, hs_i64 value, hs_i64 bound) {
  if (HS_CAS32(err, 0, code) == 0) {
    err[1] = op;
    err[2] = (hs_i32)(hs_u32)((hs_u64)value);
    err[3] = (hs_i32)(hs_u32)((hs_u64)value >> 32);
    err[4] = (hs_i32)(hs_u32)((hs_u64)bound);
    err[5] = (hs_i32)(hs_u32)((hs_u64)bound >> 32);
  }
}

// float -> int as x86-64's cvtt* instructions give it (the CPU engine's casts): out of range
// and NaN give the "integer indefinite" value, the minimum.
HS_FN hs_i32 hs_cvt_i32(hs_f64 x) {
  return (x >= -2147483648.0 && x < 2147483648.0) ? (hs_i32)x : HS_I32_MIN;
}
HS_FN hs_i64 hs_cvt_i64(hs_f64 x) {
  return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? (hs_i64)x : HS_I64_MIN;
}
HS_FN hs_u64 hs_cvt_u64(hs_f64 x) {
  if (x >= 9223372036854775808.0)
    return (hs_u64)hs_cvt_i64(x - 9223372036854775808.0) ^ ((hs_u64)1 << 63);
  return (hs_u64)hs_cvt_i64(x);
}

// Philox2x32-10 at 64-bit counter c with key lo32(seed) (ve/cpu/README.md, RANDOM word order).
HS_FN hs_u64 hs_philox(hs_u64 c, hs_u64 seed) {
  hs_u32 x0 = (hs_u32)c, x1 = (hs_u32)(c >> 32), key = (hs_u32)seed;
  for (int round = 0; round < 10; ++round) {
    if (round > 0) key += 0x9E3779B9u;
    hs_u64 product = (hs_u64)x0 * (hs_u64)0xD256D193u;
    hs_u32 hi = (hs_u32)(product >> 32), lo = (hs_u32)product;
    x0 = hi ^ key ^ x1;
    x1 = lo;
  }
  return (hs_u64)x0 | ((hs_u64)x1 << 32);
}

HS_FN hs_u64 hs_gcd_u64(hs_u64 a, hs_u64 b) {
  while (a != 0) {
    hs_u64 c = a;
    a = b % a;
    b = c;
  }
  return b;
}
HS_FN hs_u64 hs_lcm_u64(hs_u64 a, hs_u64 b) {
  hs_u64 g = hs_gcd_u64(a, b);
  return g == 0 ? 0 : a / g * b;
}

// Integer // and % with NumPy's signs (x // 0 = 0, x % 0 = 0, MIN // -1 wraps), fmod.
#define HS_SIGNED_DIV(T, W)                                                                        \
  HS_FN T hs_floordiv_##T(T x, T y) {                                                              \
    if (y == 0) return 0;                                                                          \
    if (y == -1) return (T)((W)0 - (W)x);                                                          \
    T q = (T)(x / y), r = (T)(x % y);                                                              \
    if (r != 0 && ((r < 0) != (y < 0))) q = (T)(q - 1);                                            \
    return q;                                                                                      \
  }                                                                                                \
  HS_FN T hs_mod_##T(T x, T y) {                                                                   \
    if (y == 0 || y == -1) return 0;                                                               \
    T r = (T)(x % y);                                                                              \
    if (r != 0 && ((r < 0) != (y < 0))) r = (T)(r + y);                                            \
    return r;                                                                                      \
  }                                                                                                \
  HS_FN T hs_fmod_##T(T x, T y) { return (y == 0 || y == -1) ? (T)0 : (T)(x % y); }
HS_SIGNED_DIV(hs_i8, hs_u32)
HS_SIGNED_DIV(hs_i16, hs_u32)
HS_SIGNED_DIV(hs_i32, hs_u32)
HS_SIGNED_DIV(hs_i64, hs_u64)
#define HS_UNSIGNED_DIV(T)                                                                         \
  HS_FN T hs_floordiv_##T(T x, T y) { return y == 0 ? (T)0 : (T)(x / y); }                         \
  HS_FN T hs_mod_##T(T x, T y) { return y == 0 ? (T)0 : (T)(x % y); }                              \
  HS_FN T hs_fmod_##T(T x, T y) { return y == 0 ? (T)0 : (T)(x % y); }
HS_UNSIGNED_DIV(hs_u8)
HS_UNSIGNED_DIV(hs_u16)
HS_UNSIGNED_DIV(hs_u32)
HS_UNSIGNED_DIV(hs_u64)

// Integer power by squaring over the exponent's bits, wrapping (negative exponents: an error the
// kernel reports before the call).
#define HS_INT_POW(T, W, BITS)                                                                     \
  HS_FN T hs_pow_##T(T base, T n) {                                                                \
    W r = 1, b = (W)base;                                                                          \
    for (int k = 0; k < BITS; ++k) {                                                               \
      if (((W)n >> k) & 1) r = (W)(r * b);                                                         \
      b = (W)(b * b);                                                                              \
    }                                                                                              \
    return (T)r;                                                                                   \
  }
HS_INT_POW(hs_i8, hs_u32, 7)
HS_INT_POW(hs_i16, hs_u32, 15)
HS_INT_POW(hs_i32, hs_u32, 31)
HS_INT_POW(hs_i64, hs_u64, 63)
HS_INT_POW(hs_u8, hs_u32, 8)
HS_INT_POW(hs_u16, hs_u32, 16)
HS_INT_POW(hs_u32, hs_u32, 32)
HS_INT_POW(hs_u64, hs_u64, 64)

// Floats: NumPy's npy_divmod, sign, heaviside, logaddexp(2), spacing; complex arithmetic.
#define HS_FLOAT_HELPERS(T, C, BITS, INF, NAN_)                                                    \
  HS_FN T hs_floordiv_##T(T a, T b) {                                                              \
    if (b == 0) return a / b;                                                                      \
    T mod = fmod(a, b);                                                                            \
    T div = (a - mod) / b;                                                                         \
    int adjust = (mod != 0) && ((b < 0) != (mod < 0));                                             \
    if (adjust) div = div - (T)1;                                                                  \
    T fl = floor(div);                                                                             \
    T snapped = (div - fl > (T)0.5) ? fl + (T)1 : fl;                                              \
    return div != 0 ? snapped : copysign((T)0, a / b);                                             \
  }                                                                                                \
  HS_FN T hs_mod_##T(T a, T b) {                                                                   \
    T mod = fmod(a, b);                                                                            \
    if (b == 0) return mod;                                                                        \
    int nonzero = mod != 0;                                                                        \
    if (nonzero && ((b < 0) != (mod < 0))) return mod + b;                                         \
    return nonzero ? mod : copysign((T)0, b);                                                      \
  }                                                                                                \
  HS_FN T hs_max_##T(T x, T y) { return (x >= y || x != x) ? x : y; }                              \
  HS_FN T hs_min_##T(T x, T y) { return (x <= y || x != x) ? x : y; }                              \
  HS_FN T hs_sign_##T(T x) {                                                                       \
    T r = x == 0 ? (T)0 : x;                                                                       \
    r = x < 0 ? (T)-1 : r;                                                                         \
    return x > 0 ? (T)1 : r;                                                                       \
  }                                                                                                \
  HS_FN T hs_heaviside_##T(T x, T h0) {                                                            \
    if (x != x) return NAN_;                                                                       \
    if (x == 0) return h0;                                                                         \
    return x < 0 ? (T)0 : (T)1;                                                                    \
  }                                                                                                \
  HS_FN T hs_logaddexp_##T(T x, T y, int base2) {                                                  \
    if (x == y) return x + (base2 ? (T)1 : (T)0.6931471805599453);                                 \
    T d = x - y;                                                                                   \
    if (!(d > 0) && !(d <= 0)) return d;                                                           \
    int pos = d > 0;                                                                               \
    T m = pos ? -d : d;                                                                            \
    T l = log1p(base2 ? exp2(m) : exp(m));                                                         \
    if (base2) l = l * (T)1.4426950408889634;                                                      \
    return (pos ? x : y) + l;                                                                      \
  }                                                                                                \
  HS_FN T hs_spacing_##T(T x) {                                                                    \
    if (x != x) return x;                                                                          \
    if (fabs(x) == INF) return NAN_;                                                               \
    return nextafter(x, x < 0 ? -INF : INF) - x;                                                   \
  }                                                                                                \
  HS_FN C hs_make_##C(T re, T im) {                                                                \
    C z;                                                                                           \
    z.re = re;                                                                                     \
    z.im = im;                                                                                     \
    return z;                                                                                      \
  }                                                                                                \
  HS_FN C hs_add_##C(C a, C b) { return hs_make_##C(a.re + b.re, a.im + b.im); }                   \
  HS_FN C hs_sub_##C(C a, C b) { return hs_make_##C(a.re - b.re, a.im - b.im); }                   \
  HS_FN C hs_mul_##C(C x, C y) {                                                                   \
    T im_im = x.im * y.im, im_re = x.im * y.re;                                                    \
    return hs_make_##C(fma(x.re, y.re, -im_im), fma(x.re, y.im, im_re));                           \
  }                                                                                                \
  HS_FN C hs_mulplain_##C(C x, C y) {                                                              \
    return hs_make_##C(x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re);                      \
  }                                                                                                \
  HS_FN C hs_div_##C(C x, C y) {                                                                   \
    T abs_re = fabs(y.re), abs_im = fabs(y.im);                                                    \
    if (abs_re >= abs_im) {                                                                        \
      if (abs_re == 0 && abs_im == 0) return hs_make_##C(x.re / abs_re, x.im / abs_re);            \
      T rat = y.im / y.re, scl = (T)1 / (y.re + y.im * rat);                                       \
      return hs_make_##C((x.re + x.im * rat) * scl, (x.im - x.re * rat) * scl);                    \
    }                                                                                              \
    T rat = y.re / y.im, scl = (T)1 / (y.im + y.re * rat);                                         \
    return hs_make_##C((x.re * rat + x.im) * scl, (x.im * rat - x.re) * scl);                      \
  }
HS_FLOAT_HELPERS(hs_f32, hs_c64, 32, hs_f32_of(0x7F800000), hs_f32_of(0x7FC00000))
HS_FLOAT_HELPERS(hs_f64, hs_c128, 64, hs_f64_of(0x7FF0000000000000), hs_f64_of(0x7FF8000000000000))
// ---- end of the shared helpers ----
)";
}

} // namespace hassium::gpu
