// Vector math: which glibc libmvec variant replaces each scalar math function (or intrinsic) at
// each vector width the host supports, beyond what LLVM 16's LIBMVEC_X86 table knows.
#pragma once

#include <string>
#include <vector>

#include <llvm/Analysis/TargetLibraryInfo.h>

namespace hassium::cpu {

// The host's vector ISAs, from its target-features string ("+avx2,+avx512f,...").
struct VectorIsa {
  bool avx2 = false;
  bool avx512 = false;
};
VectorIsa vector_isa(const std::string& features);

// Mappings to add to TargetLibraryInfo (the strings live as long as the program).
const std::vector<llvm::VecDesc>& libmvec_extra_mappings(VectorIsa isa);

} // namespace hassium::cpu
