// Runtime helpers: C functions JIT-compiled kernels call for what is too long to emit inline
// (complex exp/log/sqrt/power). The JIT resolves them by name from this list.
#pragma once

#include <cstdint>
#include <span>

namespace hassium::cpu {

// Two doubles returned in registers (xmm0, xmm1 on x86-64): the IR type {double, double}.
struct ComplexPair {
  double re;
  double im;
};

struct HelperSymbol {
  const char* name;
  void* address;
};

// Every helper a kernel may call, for the JIT's symbol table.
std::span<const HelperSymbol> runtime_helpers();

} // namespace hassium::cpu

extern "C" {
hassium::cpu::ComplexPair hs_cexp(double re, double im);
hassium::cpu::ComplexPair hs_clog(double re, double im);
hassium::cpu::ComplexPair hs_csqrt(double re, double im);
hassium::cpu::ComplexPair hs_cpow(double are, double aim, double bre, double bim);
// complex64's: float arithmetic, floats passed and returned as (exact) doubles
hassium::cpu::ComplexPair hs_cexpf(double re, double im);
hassium::cpu::ComplexPair hs_clogf(double re, double im);
hassium::cpu::ComplexPair hs_csqrtf(double re, double im);
hassium::cpu::ComplexPair hs_cpowf(double are, double aim, double bre, double bim);
// gcd and lcm of magnitudes (ops_arithmetic.cpp: NumPy's gcd, lcm)
uint64_t hs_gcd_u64(uint64_t a, uint64_t b);
uint64_t hs_lcm_u64(uint64_t a, uint64_t b);
}
