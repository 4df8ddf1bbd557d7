// Legality: the dependency scan of a program and the Def. 5 check of a partition.
#include "ir/fusion/legality.h"

#include <algorithm>

#include "ir/fusion/fusibility.h"

namespace hassium {

Dependencies find_dependencies(const AccessTable& t) {
  const uint32_t n = uint32_t(t.size());
  Dependencies d;
  std::vector<std::vector<uint32_t>> writes(t.views.size()), reads(t.views.size());
  std::vector<int64_t> last_sys(t.bases.size(), -1);
  std::vector<std::vector<uint32_t>> touched(t.bases.size()); // since the last FREE/SYNC
  std::vector<uint32_t> mark(n, UINT32_MAX);
  d.offsets.assign(n + 1, 0);
  d.preds.reserve(size_t(n) * 2);
  for (uint32_t g = 0; g < n; ++g) {
    size_t start = d.preds.size();
    auto add = [&](uint32_t f) {
      if (f != g && mark[f] != g) {
        mark[f] = g;
        d.preds.push_back(f);
      }
    };
    auto acc = t.accesses_of(g);
    for (const Access& a : acc) {
      int64_t lower = last_sys[a.base];
      if (lower >= 0) add(uint32_t(lower));
      if (a.view == kNoView) { // FREE/SYNC: after every access of the base
        for (uint32_t f : touched[a.base]) add(f);
        continue;
      }
      if (t.views[a.view].bytes == 0) continue; // an empty view: no element to conflict on
      const auto& same = writes[a.view];
      if (!same.empty() && int64_t(same.back()) > lower) {
        add(same.back());
        lower = same.back();
      }
      // Reads after `from` (the ones before it are ordered by it already).
      auto scan = [&](const std::vector<uint32_t>& list, int64_t from) {
        for (auto it = list.rbegin(); it != list.rend() && int64_t(*it) > from; ++it) add(*it);
      };
      const auto& others = t.views[a.view].overlaps;
      // Of an overlapping view, only the last write counts: it depends on the earlier ones.
      for (uint32_t u : others)
        if (!writes[u].empty() && int64_t(writes[u].back()) > lower) add(writes[u].back());
      if (a.mode == AccessMode::WRITE) {
        scan(reads[a.view], lower);
        for (uint32_t u : others)
          scan(reads[u], writes[u].empty() ? lower : std::max<int64_t>(lower, writes[u].back()));
      }
    }
    std::sort(d.preds.begin() + long(start), d.preds.end());
    d.offsets[g + 1] = uint32_t(d.preds.size());
    for (const Access& a : acc) {
      if (a.view == kNoView) {
        last_sys[a.base] = g;
        touched[a.base].clear();
        continue;
      }
      auto& list = a.mode == AccessMode::WRITE ? writes[a.view] : reads[a.view];
      if (t.views[a.view].bytes > 0 && (list.empty() || list.back() != g)) list.push_back(g);
      auto& tb = touched[a.base];
      if (tb.empty() || tb.back() != g) tb.push_back(g);
    }
  }
  return d;
}

namespace {

constexpr uint32_t kNone = UINT32_MAX;

// Block index of every instruction, or what is wrong (a name out of range, twice or never).
std::string block_of(size_t n, const std::vector<std::vector<size_t>>& blocks,
                     std::vector<uint32_t>& of) {
  of.assign(n, kNone);
  for (size_t b = 0; b < blocks.size(); ++b)
    for (size_t i : blocks[b]) {
      if (i >= n)
        return "block " + std::to_string(b + 1) + " names instruction " + std::to_string(i + 1) +
               " of a program of " + std::to_string(n);
      if (of[i] != kNone) return "instruction " + std::to_string(i + 1) + " is in two blocks";
      of[i] = uint32_t(b);
    }
  for (size_t i = 0; i < n; ++i)
    if (of[i] == kNone) return "instruction " + std::to_string(i + 1) + " is in no block";
  return "";
}

// Rules 1-4 through the block's aggregated loop class; rule 5 by stamping the views the block
// accesses (with the instruction, or kNone when several do) and looking for a written view's
// overlapping views among them.
std::string check_fusible(const AccessTable& t, const std::vector<std::vector<size_t>>& blocks) {
  std::vector<uint32_t> stamp(t.views.size(), kNone), user(t.views.size(), kNone);
  for (size_t b = 0; b < blocks.size(); ++b) {
    const std::string where = "block " + std::to_string(b + 1) + ": instruction ";
    LoopClass c;
    for (size_t i : blocks[b]) {
      LoopClass ci = LoopClass::of(t, uint32_t(i));
      if (!c.compatible(ci))
        return where + std::to_string(i + 1) +
               " is not fusible with the block's others (loop shape, reduction axis, or an "
               "instruction that fuses with nothing)";
      c = c.merged(ci);
      for (const Access& a : t.accesses_of(i)) {
        if (a.view == kNoView) continue;
        if (stamp[a.view] != b) {
          stamp[a.view] = uint32_t(b);
          user[a.view] = uint32_t(i);
        } else if (user[a.view] != i) {
          user[a.view] = kNone;
        }
      }
    }
    for (size_t i : blocks[b])
      for (const Access& a : t.accesses_of(i)) {
        if (a.mode != AccessMode::WRITE) continue;
        for (uint32_t u : t.views[a.view].overlaps)
          if (stamp[u] == b && user[u] != i)
            return where + std::to_string(i + 1) +
                   " is not fusible with the block's others: it writes a view that overlaps, "
                   "without being identical, a view another instruction of the block accesses";
      }
  }
  return "";
}

} // namespace

std::string check_partition(const AccessTable& t, const std::vector<std::vector<size_t>>& blocks,
                            const Dependencies* deps) {
  std::vector<uint32_t> of;
  std::string error = block_of(t.size(), blocks, of);
  if (error.empty()) error = check_fusible(t, blocks);
  if (!error.empty()) return error;
  Dependencies own;
  if (!deps) {
    own = find_dependencies(t);
    deps = &own;
  }
  for (uint32_t g = 0; g < t.size(); ++g)
    for (uint32_t f : deps->of(g))
      if (of[g] < of[f])
        return "block " + std::to_string(of[g] + 1) + " runs before block " +
               std::to_string(of[f] + 1) + " but instruction " + std::to_string(g + 1) +
               " depends on instruction " + std::to_string(f + 1);
  return "";
}

} // namespace hassium
