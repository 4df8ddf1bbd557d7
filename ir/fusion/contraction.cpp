// Contraction: the per-base rule of which bases may live in registers only.
#include "ir/fusion/contraction.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace hassium {

bool visits_each_element_once(const View& v) {
  std::vector<std::pair<int64_t, int64_t>> dims; // (|stride|, extent), extents > 1 only
  for (size_t k = 0; k < v.shape.size(); ++k) {
    if (v.shape[k] == 0) return true; // visits nothing
    if (v.shape[k] > 1) dims.emplace_back(std::abs(v.stride[k]), v.shape[k]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t span = 0; // largest distance between two elements of the inner dimensions
  for (auto [s, e] : dims) {
    if (s <= span) return false;
    span += s * (e - 1);
  }
  return true;
}

void BaseUse::access(const View& v, bool write, Family family) {
  if (!seen_) {
    seen_ = true;
    written_first_ = write;
  }
  // A reduction reads its input one element per iteration too: the engine accumulates the
  // register. Its output, scans, gathers and scatters need the memory.
  const bool reduced_input = family == Family::REDUCTION && !write;
  if (family != Family::ELEMENTWISE && family != Family::GENERATOR && !reduced_input)
    per_element_ = false;
  if (!view_) {
    view_ = &v;
  } else if (one_view_ && !view_->identical(v)) {
    one_view_ = false;
  }
}

void BaseUse::system(Opcode op) {
  seen_ = true; // a FREE or SYNC first: the base was not written first
  (op == Opcode::FREE ? freed_ : synced_) = true;
}

bool BaseUse::contractible(const Base& base) const {
  return base.data == nullptr && !base.allocation && !base.external_owner && written_first_ &&
         freed_ && !synced_ && per_element_ && one_view_ && view_ != nullptr &&
         visits_each_element_once(*view_);
}

} // namespace hassium
