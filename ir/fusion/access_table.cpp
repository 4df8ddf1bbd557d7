// Access table construction: view interning, overlap sweep over boxes, loop classes, creators.
#include "ir/fusion/access_table.h"

#include <algorithm>
#include <unordered_map>

#include "core/error.h"
#include "core/pointer_index.h"
#include "core/thread_scratch.h"
#include "core/view_index.h"
#include "ir/fusion/contraction.h"
#include "ir/fusion/view_boxes.h"

namespace hassium {

namespace {

uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

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

// Fills ViewEntry::overlaps for the views [first, end) of one base: the pairs that overlap and
// of which at least one view is written. Candidates come from a sweep over the views sorted by
// their boxes' start along one axis: a written view meets every later view whose box starts at
// or before its end, a view only read meets only the later written ones (read-read pairs never
// order or split anything, so they are not even visited). The exact test runs only where the
// boxes meet. The sweep runs along the axis where the boxes cover the least of the base's range
// on average (rows for a matrix's rows, columns for its columns: k columns cost O(k log k), not
// the k^2 / 2 a sweep along their common rows would).
void find_overlaps(AccessTable& t, uint32_t first, uint32_t end) {
  if (end - first < 2) return;
  struct Item {
    Box box;
    uint32_t id;
    bool written;
  };
  std::vector<const View*> views;
  views.reserve(end - first);
  for (uint32_t v = first; v < end; ++v) views.push_back(t.views[v].view);
  const int64_t row = row_length(views);
  std::vector<Item> items;
  items.reserve(end - first);
  for (uint32_t v = first; v < end; ++v) {
    const View& view = *t.views[v].view;
    if (view.size() == 0) continue;
    items.push_back({box_of(view, row), v, t.views[v].written});
  }
  if (items.size() < 2) return;
  std::vector<Box> boxes;
  boxes.reserve(items.size());
  for (const Item& it : items) boxes.push_back(it.box);
  const int axis = sweep_axis(boxes);
  std::sort(items.begin(), items.end(), [axis](const Item& a, const Item& b) {
    return a.box.lo(axis) != b.box.lo(axis) ? a.box.lo(axis) < b.box.lo(axis) : a.id < b.id;
  });
  std::vector<uint32_t> written; // positions in items of the written views
  for (uint32_t i = 0; i < items.size(); ++i)
    if (items[i].written) written.push_back(i);
  auto test = [&](const Item& a, const Item& b) {
    if (a.box.meets(b.box) && overlaps(*t.views[a.id].view, *t.views[b.id].view)) {
      t.views[a.id].overlaps.push_back(b.id);
      t.views[b.id].overlaps.push_back(a.id);
    }
  };
  size_t next_written = 0; // the first written position after i
  for (size_t i = 0; i < items.size(); ++i) {
    while (next_written < written.size() && written[next_written] <= i) ++next_written;
    const Item& a = items[i];
    if (a.written) {
      for (size_t j = i + 1; j < items.size() && items[j].box.lo(axis) <= a.box.hi(axis); ++j)
        test(a, items[j]);
    } else {
      for (size_t w = next_written; w < written.size(); ++w) {
        const Item& b = items[written[w]];
        if (b.box.lo(axis) > a.box.hi(axis)) break;
        test(a, b);
      }
    }
  }
  for (uint32_t v = first; v < end; ++v)
    std::sort(t.views[v].overlaps.begin(), t.views[v].overlaps.end());
}

} // namespace

bool AccessTable::overlapping(uint32_t v, uint32_t u) const {
  const auto& o = views[v].overlaps;
  return std::binary_search(o.begin(), o.end(), u);
}

AccessTable build_access_table(const Program& program, std::span<const Base* const> only) {
  AccessTable t;
  t.program = &program;
  const size_t n = program.instrs.size();
  thread_local PointerIndex tls_only;
  PointerIndex& kept = pinned(tls_only);
  kept.reset(only.size());
  for (const Base* b : only) kept.insert(b);
  auto skip = [&](const Base* b) { return !only.empty() && !kept.contains(b); };
  t.instrs.resize(n);
  t.accesses.reserve(n * 3);

  // Bases and views get provisional ids in order of first appearance (per-thread open-addressing
  // tables: nothing allocated per base or view once grown).
  thread_local PointerIndex tls_base_ids;
  thread_local ViewIndex tls_view_ids;
  PointerIndex& base_ids = pinned(tls_base_ids);
  ViewIndex& view_ids = pinned(tls_view_ids);
  base_ids.reset(64);
  view_ids.reset(n * 2);
  std::unordered_map<Dims, int32_t, DimsHash> shape_ids;
  const Dims* last_shape = nullptr; // (consecutive instructions mostly share a loop shape)
  int32_t last_shape_id = -1;
  std::vector<const View*> view_rep;
  std::vector<uint32_t> view_base;
  std::vector<BaseUse> uses; // per base: the contraction rule's facts (ir/fusion/contraction.h)

  auto base_id = [&](const Base* b) {
    bool fresh;
    const uint32_t id = base_ids.insert(b, fresh); // ids are dense: the next one when fresh
    if (fresh) {
      BaseEntry e;
      e.base = b;
      t.bases.push_back(e);
      uses.emplace_back();
    }
    return id;
  };

  for (size_t i = 0; i < n; ++i) {
    const Instruction& ins = program.instrs[i];
    InstrEntry& e = t.instrs[i];
    e.first_access = uint32_t(t.accesses.size());
    e.kind = kind_of(ins);
    if (e.kind == InstrKind::SYSTEM) {
      HS_INTERNAL_ASSERT(!ins.operands.empty() && ins.is_view(0))
          << "instruction " << i + 1 << ": " << op_name(ins.op) << " needs a base operand";
      if (!skip(ins.view(0).base.get())) {
        uint32_t b = base_id(ins.view(0).base.get());
        t.accesses.push_back(
            {kNoView, b, ins.op == Opcode::FREE ? AccessMode::FREE : AccessMode::SYNC});
        uses[b].system(ins.op);
      }
    } else {
      const Dims& shape = ins.loop_shape();
      if (!last_shape || *last_shape != shape) {
        auto [sit, sfresh] = shape_ids.try_emplace(shape, int32_t(t.shapes.size()));
        if (sfresh) t.shapes.push_back(shape);
        last_shape = &shape;
        last_shape_id = sit->second;
      }
      e.shape = last_shape_id;
      if (e.kind == InstrKind::REDUCTION) e.axis = ins.axis();
      for (size_t k = 0; k < ins.operands.size(); ++k) {
        if (!ins.is_view(k)) continue;
        const View& v = ins.view(k);
        if (skip(v.base.get())) continue;
        uint32_t b = base_id(v.base.get());
        t.bases[b].viewed = true;
        const uint32_t next = uint32_t(view_rep.size());
        const uint32_t vid = uint32_t(view_ids.find_or_insert(v, 0, int(next)));
        if (vid == next) {
          view_rep.push_back(&v);
          view_base.push_back(b);
        }
        t.accesses.push_back({vid, b, k == 0 ? AccessMode::WRITE : AccessMode::READ});
      }
      // The contraction facts see an instruction's reads before its write.
      const Family family = ins.info().family;
      for (size_t k = 1; k < ins.operands.size(); ++k)
        if (ins.is_view(k) && !skip(ins.view(k).base.get()))
          uses[base_id(ins.view(k).base.get())].access(ins.view(k), false, family);
      if (!skip(ins.out().base.get()))
        uses[base_id(ins.out().base.get())].access(ins.out(), true, family);
    }
    e.num_access = uint32_t(t.accesses.size()) - e.first_access;
  }
  for (size_t b = 0; b < t.bases.size(); ++b)
    t.bases[b].contractible = uses[b].contractible(*t.bases[b].base);

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
    if (a.view != kNoView) {
      a.view = remap[a.view];
      if (a.mode == AccessMode::WRITE) t.views[a.view].written = true;
    }
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
