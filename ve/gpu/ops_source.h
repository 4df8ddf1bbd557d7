// Op semantics as C expressions for the GPU kernel generator: element-wise opcodes, casts,
// reductions' identities and combining steps, literals. The same rules as the CPU engine's
// emitters (ve/cpu/ops_*.cpp), on the helpers of ve/gpu/prelude.cpp.
#pragma once

#include <string>
#include <vector>

#include "core/opcode.h"

namespace hassium::gpu {

// The C type of a dtype's values in a kernel (hs_bool, hs_i32, hs_c64, ...).
std::string ctype(DType t);
// A literal of dtype t with value v (complex: v + 0i); exact for the values kernels need (0, 1,
// +-inf, the extremes of integer types come from int_literal).
std::string literal(DType t, double v);
// Whether the value of a dtype is nonzero (as bool): `x != 0`, either part for complex.
std::string truthy(DType t, const std::string& v);
// v (of dtype `from`) converted to `to` as the CPU engine converts (x86-exact float -> int).
std::string convert(const std::string& v, DType from, DType to);

// Whether an element-wise opcode with free type `in` and output `out` has a GPU expression.
bool elementwise_supported(Opcode op, DType in, DType out, std::string* why);
// The expression of an element-wise opcode over the operand values `args` (variable names;
// WHERE: the bool condition, then two values of `in`). Statements it needs first (an error
// check) are appended to `pre`; `err` names the kernel's error record.
std::string elementwise_expr(Opcode op, DType in, DType out, const std::vector<std::string>& args,
                             std::string& pre);
// How a *_AT accumulation combines the element `cur` with the value `v`.
std::string at_expr(Opcode at_op, DType t, const std::string& cur, const std::string& v);

// A REDUCTION's (or a SCAN's underlying reduction's) identity and combining step.
std::string reduce_identity(Opcode op, DType t);
std::string reduce_combine(Opcode op, DType t, const std::string& acc, const std::string& x);

} // namespace hassium::gpu
