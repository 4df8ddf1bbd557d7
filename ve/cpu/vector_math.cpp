// The libmvec table: every function glibc (2.35+) vectorizes, at SSE (b), AVX2 (d) and AVX-512
// (e) widths, keyed by the C name and by the LLVM intrinsic the emitters use.
#include "ve/cpu/vector_math.h"

#include <deque>
#include <mutex>

namespace hassium::cpu {

namespace {
struct MathFunction {
  const char* name;      // the double version; float appends "f"
  const char* intrinsic; // llvm.<x> used by ops_math.cpp, or null
  int args;              // 1: "v", 2: "vv"
  bool in_llvm_table;    // LLVM 16 maps its b and d variants already
};

// The one list.
constexpr MathFunction kFunctions[] = {
    {"exp", "exp", 1, true},      {"log", "log", 1, true},      {"sin", "sin", 1, true},
    {"cos", "cos", 1, true},      {"pow", "pow", 2, true},      {"exp2", "exp2", 1, false},
    {"log2", "log2", 1, false},   {"log10", "log10", 1, false}, {"expm1", nullptr, 1, false},
    {"log1p", nullptr, 1, false}, {"asin", nullptr, 1, false},  {"acos", nullptr, 1, false},
    {"atan", nullptr, 1, false},  {"sinh", nullptr, 1, false},  {"cosh", nullptr, 1, false},
    {"tanh", nullptr, 1, false},  {"asinh", nullptr, 1, false}, {"acosh", nullptr, 1, false},
    {"atanh", nullptr, 1, false}, {"atan2", nullptr, 2, false}, {"hypot", nullptr, 2, false},
    {"tan", nullptr, 1, false},   {"cbrt", nullptr, 1, false},
};

struct Width {
  char isa;    // b, d, e
  int lanes64; // doubles per vector
  bool (*available)(VectorIsa);
};

constexpr Width kWidths[] = {
    {'b', 2, [](VectorIsa) { return true; }},
    {'d', 4, [](VectorIsa i) { return i.avx2; }},
    {'e', 8, [](VectorIsa i) { return i.avx512; }},
};

std::vector<llvm::VecDesc> build(VectorIsa isa, std::deque<std::string>& names) {
  std::vector<llvm::VecDesc> out;
  auto keep = [&](std::string s) -> llvm::StringRef { return names.emplace_back(std::move(s)); };
  for (const MathFunction& f : kFunctions) {
    for (const Width& w : kWidths) {
      if (!w.available(isa) || (f.in_llvm_table && w.isa != 'e')) continue;
      const std::string params = f.args == 2 ? "vv" : "v";
      for (bool single : {false, true}) {
        int lanes = single ? 2 * w.lanes64 : w.lanes64;
        std::string scalar = std::string(f.name) + (single ? "f" : "");
        std::string vector =
            "_ZGV" + std::string(1, w.isa) + "N" + std::to_string(lanes) + params + "_" + scalar;
        auto vf = llvm::ElementCount::getFixed(unsigned(lanes));
        llvm::StringRef vname = keep(vector);
        out.push_back({keep(scalar), vname, vf});
        if (f.intrinsic)
          out.push_back(
              {keep(std::string("llvm.") + f.intrinsic + (single ? ".f32" : ".f64")), vname, vf});
      }
    }
  }
  return out;
}
} // namespace

VectorIsa vector_isa(const std::string& features) {
  VectorIsa isa;
  isa.avx2 = features.find("+avx2") != std::string::npos;
  isa.avx512 = features.find("+avx512f") != std::string::npos;
  return isa;
}

const std::vector<llvm::VecDesc>& libmvec_extra_mappings(VectorIsa isa) {
  static std::mutex mutex;
  static std::deque<std::string> names;
  static std::vector<llvm::VecDesc> tables[4];
  static bool built[4] = {false, false, false, false};
  const int key = (isa.avx2 ? 1 : 0) | (isa.avx512 ? 2 : 0);
  std::lock_guard<std::mutex> lock(mutex);
  if (!built[key]) {
    tables[key] = build(isa, names);
    built[key] = true;
  }
  return tables[key];
}

} // namespace hassium::cpu
