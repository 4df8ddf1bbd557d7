// Access table construction: view interning, overlap sweep, loop classes, base creators.
#include "ir/access_table.h"

#include <algorithm>
#include <unordered_map>

#include "core/error.h"

namespace hassium {

namespace {

uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

struct ViewKeyHash {
  size_t operator()(const View* v) const {
    uint64_t h = reinterpret_cast<uintptr_t>(v->base.get());
    h = mix(h, uint64_t(v->offset));
    for (size_t k = 0; k < v->shape.size(); ++k) {
      h = mix(h, uint64_t(v->shape[k]));
      h = mix(h, uint64_t(v->stride[k]));
    }
    return size_t(h);
  }
};
struct ViewKeyEq {
  bool operator()(const View* a, const View* b) const { return a->identical(*b); }
};

struct DimsHash {
  size_t operator()(const Dims& d) const {
    uint64_t h = d.size();
    for (auto x : d) h = mix(h, uint64_t(x));
    return size_t(h);
  }
};

InstrKind kind_of(const Instruction& ins) {
  switch (ins.info().family) {
  case Family::SYSTEM:
    return InstrKind::SYSTEM;
  case Family::ELEMENTWISE:
  case Family::GENERATOR:
    return InstrKind::ELEMENTWISE;
  case Family::REDUCTION:
    return InstrKind::REDUCTION;
  case Family::SCAN:
  case Family::INDEXING:
  case Family::EXTENSION:
    return InstrKind::SOLO;
  }
  return InstrKind::SOLO;
}

// Fills ViewEntry::overlaps for the views [first, end) of one base.
void find_overlaps(AccessTable& t, uint32_t first, uint32_t end) {
  if (end - first < 2) return;
  struct Span {
    int64_t lo, hi;
    uint32_t id;
  };
  std::vector<Span> spans;
  spans.reserve(end - first);
  for (uint32_t v = first; v < end; ++v) {
    const View& view = *t.views[v].view;
    if (view.size() == 0) continue;
    spans.push_back({view.min_index(), view.max_index(), v});
  }
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) { return a.lo < b.lo; });
  for (size_t i = 0; i < spans.size(); ++i)
    for (size_t j = i + 1; j < spans.size() && spans[j].lo <= spans[i].hi; ++j)
      if (overlaps(*t.views[spans[i].id].view, *t.views[spans[j].id].view)) {
        t.views[spans[i].id].overlaps.push_back(spans[j].id);
        t.views[spans[j].id].overlaps.push_back(spans[i].id);
      }
  for (uint32_t v = first; v < end; ++v)
    std::sort(t.views[v].overlaps.begin(), t.views[v].overlaps.end());
}

} // namespace

bool AccessTable::overlapping(uint32_t v, uint32_t u) const {
  const auto& o = views[v].overlaps;
  return std::binary_search(o.begin(), o.end(), u);
}

AccessTable build_access_table(const Program& program) {
  AccessTable t;
  t.program = &program;
  const size_t n = program.instrs.size();
  t.instrs.resize(n);
  t.accesses.reserve(n * 3);

  // Bases and views get provisional ids in order of first appearance.
  std::unordered_map<const Base*, uint32_t> base_ids;
  std::unordered_map<const View*, uint32_t, ViewKeyHash, ViewKeyEq> view_ids;
  std::unordered_map<Dims, int32_t, DimsHash> shape_ids;
  base_ids.reserve(64);
  view_ids.reserve(n * 2);
  std::vector<const View*> view_rep;
  std::vector<uint32_t> view_base;

  auto base_id = [&](const Base* b) {
    auto [it, fresh] = base_ids.try_emplace(b, uint32_t(t.bases.size()));
    if (fresh) {
      BaseEntry e;
      e.base = b;
      t.bases.push_back(e);
    }
    return it->second;
  };

  for (size_t i = 0; i < n; ++i) {
    const Instruction& ins = program.instrs[i];
    InstrEntry& e = t.instrs[i];
    e.first_access = uint32_t(t.accesses.size());
    e.kind = kind_of(ins);
    if (e.kind == InstrKind::SYSTEM) {
      HS_INTERNAL_ASSERT(!ins.operands.empty() && ins.is_view(0))
          << "instruction " << i + 1 << ": " << op_name(ins.op) << " needs a base operand";
      uint32_t b = base_id(ins.view(0).base.get());
      t.accesses.push_back(
          {kNoView, b, ins.op == Opcode::FREE ? AccessMode::FREE : AccessMode::SYNC});
    } else {
      auto [sit, sfresh] = shape_ids.try_emplace(ins.loop_shape(), int32_t(t.shapes.size()));
      if (sfresh) t.shapes.push_back(ins.loop_shape());
      e.shape = sit->second;
      if (e.kind == InstrKind::REDUCTION) e.axis = ins.axis();
      for (size_t k = 0; k < ins.operands.size(); ++k) {
        if (!ins.is_view(k)) continue;
        const View& v = ins.view(k);
        uint32_t b = base_id(v.base.get());
        t.bases[b].viewed = true;
        auto [vit, vfresh] = view_ids.try_emplace(&v, uint32_t(view_rep.size()));
        if (vfresh) {
          view_rep.push_back(&v);
          view_base.push_back(b);
        }
        t.accesses.push_back({vit->second, b, k == 0 ? AccessMode::WRITE : AccessMode::READ});
      }
    }
    e.num_access = uint32_t(t.accesses.size()) - e.first_access;
  }
  for (const Access& a : t.accesses)
    if (a.mode == AccessMode::SYNC) t.bases[a.base].synced = true;

  // Renumber views so that the views of one base are consecutive (bases in first-use order).
  std::vector<uint32_t> per_base(t.bases.size() + 1, 0);
  for (uint32_t b : view_base) ++per_base[b + 1];
  for (size_t b = 0; b < t.bases.size(); ++b) {
    per_base[b + 1] += per_base[b];
    t.bases[b].first_view = per_base[b];
    t.bases[b].end_view = per_base[b + 1];
  }
  std::vector<uint32_t> remap(view_rep.size());
  t.views.resize(view_rep.size());
  {
    std::vector<uint32_t> next(per_base.begin(), per_base.end() - 1);
    for (uint32_t old = 0; old < view_rep.size(); ++old) {
      uint32_t b = view_base[old];
      uint32_t id = next[b]++;
      remap[old] = id;
      ViewEntry& ve = t.views[id];
      ve.base = b;
      ve.view = view_rep[old];
      ve.bytes = ve.view->size() * dtype_size(ve.view->dtype());
    }
  }
  for (Access& a : t.accesses)
    if (a.view != kNoView) a.view = remap[a.view];
  for (size_t b = 0; b < t.bases.size(); ++b)
    find_overlaps(t, t.bases[b].first_view, t.bases[b].end_view);

  // Creators: the first instruction touching a base without data writes it and reads nothing
  // of it.
  std::vector<uint8_t> seen(t.bases.size(), 0);
  for (size_t i = 0; i < n; ++i) {
    auto acc = t.accesses_of(i);
    for (const Access& a : acc) {
      if (seen[a.base]) continue;
      bool writes = false, other = false;
      for (const Access& o : acc)
        if (o.base == a.base) (o.mode == AccessMode::WRITE ? writes : other) = true;
      const Base* base = t.bases[a.base].base;
      if (writes && !other && base->data == nullptr && !base->external_owner)
        t.bases[a.base].creator = int32_t(i);
      seen[a.base] = 1;
    }
  }
  return t;
}

} // namespace hassium
