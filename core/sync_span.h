// sync_span: the elements a SYNC of part of a base brings to the host, where the base's values
// live elsewhere (a GPU's memory, the cluster's ranks): the part's span, or the whole base.
#pragma once

#include <cstdint>
#include <utility>

#include "core/base.h"
#include "core/view.h"

namespace hassium {

// Bases below this many bytes come over whole (a part saves nothing worth a second copy).
inline constexpr int64_t kPartialSyncMinBytes = 64 << 10;
// At most this many parts per write of the base; after them the host reads much of it and the
// whole base comes over (so that its later reads need none).
inline constexpr int kPartialSyncsPerWrite = 8;

// Elements [lo, hi) a SYNC of `part` copies, after `partial_syncs` SYNCs of a part since the base
// was last written: the span of `part` (empty for an empty part) where the base is large and
// the count allows, else the whole base [0, nelem). Device memories and the cluster VEM decide
// alike with it.
inline std::pair<int64_t, int64_t> sync_span(const View& part, int partial_syncs) {
  const Base& base = *part.base;
  const std::pair<int64_t, int64_t> whole{0, base.nelem};
  if (base.nbytes() < kPartialSyncMinBytes || partial_syncs >= kPartialSyncsPerWrite) return whole;
  if (part.size() == 0) return {0, 0};
  const std::pair<int64_t, int64_t> span{part.min_index(), part.max_index() + 1};
  return span == whole ? whole : span;
}

} // namespace hassium
