// Block summaries: built from instructions, merged with two-pointer walks (in place from the
// back for the partition graph's growing blocks).
#include "ir/fusion/block_summary.h"

#include <algorithm>

namespace hassium {

namespace {

ViewStat combine(ViewStat x, const ViewStat& y) {
  x.first_read = std::min(x.first_read, y.first_read);
  x.first_write = std::min(x.first_write, y.first_write);
  x.count += y.count;
  return x;
}

} // namespace

std::span<const ViewStat> BlockSummary::views_of(const BaseStat& b) const {
  auto key = [](const ViewStat& v, uint32_t x) { return v.view < x; };
  auto lo = std::lower_bound(views.begin(), views.end(), b.first_view, key);
  auto hi = std::lower_bound(lo, views.end(), b.end_view, key);
  return {views.data() + (lo - views.begin()), size_t(hi - lo)};
}

const BaseStat* BlockSummary::find_base(uint32_t base) const {
  auto it = std::lower_bound(bases.begin(), bases.end(), base,
                             [](const BaseStat& b, uint32_t x) { return b.base < x; });
  return it != bases.end() && it->base == base ? &*it : nullptr;
}

const ViewStat* BlockSummary::find_view(uint32_t view) const {
  auto it = std::lower_bound(views.begin(), views.end(), view,
                             [](const ViewStat& v, uint32_t x) { return v.view < x; });
  return it != views.end() && it->view == view ? &*it : nullptr;
}

BlockSummary summarize_block(const AccessTable& t, std::span<const uint32_t> instrs) {
  BlockSummary s;
  for (uint32_t i : instrs) {
    for (const Access& a : t.accesses_of(i)) {
      uint8_t flag = 0;
      switch (a.mode) {
      case AccessMode::READ:
        s.views.push_back({a.view, i, kNever, 1});
        break;
      case AccessMode::WRITE:
        s.views.push_back({a.view, kNever, i, 1});
        break;
      case AccessMode::FREE:
        flag = kFreed;
        break;
      case AccessMode::SYNC:
        flag = kSynced;
        break;
      }
      if (t.bases[a.base].creator == int32_t(i) && t.bases[a.base].contractible) flag |= kCreated;
      BaseStat b;
      b.base = a.base;
      b.flags = flag;
      b.first_view = t.bases[a.base].first_view;
      b.end_view = t.bases[a.base].end_view;
      s.bases.push_back(b);
    }
  }
  std::sort(s.views.begin(), s.views.end(),
            [](const ViewStat& a, const ViewStat& b) { return a.view < b.view; });
  size_t w = 0;
  for (size_t r = 0; r < s.views.size(); ++r) {
    if (w > 0 && s.views[w - 1].view == s.views[r].view)
      s.views[w - 1] = combine(s.views[w - 1], s.views[r]);
    else
      s.views[w++] = s.views[r];
  }
  s.views.resize(w);
  std::sort(s.bases.begin(), s.bases.end(),
            [](const BaseStat& a, const BaseStat& b) { return a.base < b.base; });
  w = 0;
  for (size_t r = 0; r < s.bases.size(); ++r) {
    if (w > 0 && s.bases[w - 1].base == s.bases[r].base)
      s.bases[w - 1].flags |= s.bases[r].flags;
    else
      s.bases[w++] = s.bases[r];
  }
  s.bases.resize(w);
  return s;
}

BlockSummary summarize_instruction(const AccessTable& t, uint32_t instr) {
  return summarize_block(t, std::span<const uint32_t>(&instr, 1));
}

void merge_views(std::span<const ViewStat> a, std::span<const ViewStat> b,
                 std::vector<ViewStat>& out) {
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].view < b[j].view))
      out.push_back(a[i++]);
    else if (i == a.size() || b[j].view < a[i].view)
      out.push_back(b[j++]);
    else
      out.push_back(combine(a[i++], b[j++]));
  }
}

BlockSummary merge_summaries(const BlockSummary& a, const BlockSummary& b) {
  BlockSummary s;
  s.views.reserve(a.views.size() + b.views.size());
  merge_views(a.views, b.views, s.views);
  s.bases.reserve(a.bases.size() + b.bases.size());
  size_t i = 0, j = 0;
  while (i < a.bases.size() || j < b.bases.size()) {
    if (j == b.bases.size() || (i < a.bases.size() && a.bases[i].base < b.bases[j].base)) {
      s.bases.push_back(a.bases[i++]);
    } else if (i == a.bases.size() || b.bases[j].base < a.bases[i].base) {
      s.bases.push_back(b.bases[j++]);
    } else {
      s.bases.push_back(a.bases[i++]);
      s.bases.back().flags |= b.bases[j++].flags;
    }
  }
  return s;
}

namespace {

// Merges the sorted `b` into the sorted `a` in place, combining equal keys; from the back, so
// nothing is overwritten before it is read.
template <typename T, typename Key, typename Combine>
void merge_back(std::vector<T>& a, const std::vector<T>& b, Key key, Combine combine) {
  const size_t n = a.size(), m = b.size();
  a.resize(n + m);
  size_t i = n, j = m, w = n + m;
  while (j > 0) {
    if (i > 0 && key(a[i - 1]) > key(b[j - 1])) {
      a[--w] = a[--i];
    } else if (i > 0 && key(a[i - 1]) == key(b[j - 1])) {
      a[--w] = combine(a[--i], b[--j]);
    } else {
      a[--w] = b[--j];
    }
  }
  // a[0, i) is in place already; a[w, n + m) holds the rest: close the gap between them.
  if (w > i) a.erase(a.begin() + long(i), a.begin() + long(w));
}

} // namespace

void merge_into(BlockSummary& into, const BlockSummary& other) {
  merge_back(
      into.views, other.views, [](const ViewStat& v) { return v.view; },
      [](ViewStat x, const ViewStat& y) { return combine(x, y); });
  merge_back(
      into.bases, other.bases, [](const BaseStat& b) { return b.base; },
      [](BaseStat x, const BaseStat& y) {
        x.flags |= y.flags;
        return x;
      });
}

} // namespace hassium
