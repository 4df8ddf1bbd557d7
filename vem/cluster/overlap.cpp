// split_phase: the rows of a phase's local program that run before the wait for its messages.
#include "vem/cluster/overlap.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

#include "vem/cluster/distribution.h"

namespace hassium::cluster {

namespace {
constexpr int64_t kFar = int64_t(1) << 60; // beyond every element index

int64_t floor_div(int64_t x, int64_t y) { // y != 0
  const int64_t q = x / y;
  return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
}
int64_t ceil_div(int64_t x, int64_t y) { // y != 0
  const int64_t q = x / y;
  return (x % y != 0 && ((x < 0) == (y < 0))) ? q + 1 : q;
}

using Interval = std::pair<int64_t, int64_t>; // [first, second)
using Intervals = std::vector<Interval>;

int64_t row_elements(const View& v) {
  int64_t n = 1;
  for (int d = 1; d < v.ndim(); ++d) n *= v.shape[size_t(d)];
  return n;
}

// A view as rows along dim 0; `whole`: every row is the whole view (a 0-d output's one row, a
// 0-d input).
struct RowMap {
  int64_t offset = 0, s0 = 0, rmin = 0, rmax = 0;
  RowMap(const View& v, bool whole) {
    const Rows r(v);
    offset = r.offset;
    s0 = r.s0;
    rmin = r.rmin;
    rmax = r.rmax;
    if (whole || v.ndim() == 0) {
      s0 = 0;
      rmin = v.min_index() - offset;
      rmax = v.max_index() - offset;
    }
  }
  int64_t first(int64_t i) const { return offset + i * s0 + rmin; }
  int64_t last(int64_t i) const { return offset + i * s0 + rmax; }
  // The rows of [a, b) whose elements meet [lo, hi).
  Interval touching(int64_t a, int64_t b, int64_t lo, int64_t hi) const {
    if (a >= b || lo >= hi) return {a, a};
    if (s0 == 0) return first(0) <= hi - 1 && last(0) >= lo ? Interval{a, b} : Interval{a, a};
    // Row i meets [lo, hi - 1] when offset + i s0 + rmin <= hi - 1 and offset + i s0 + rmax >= lo.
    const int64_t x = hi - 1 - offset - rmin, y = lo - offset - rmax;
    int64_t i0, i1;
    if (s0 > 0) {
      i0 = ceil_div(y, s0);
      i1 = floor_div(x, s0) + 1;
    } else {
      i0 = ceil_div(x, s0);
      i1 = floor_div(y, s0) + 1;
    }
    i0 = std::clamp(i0, a, b);
    i1 = std::clamp(i1, i0, b);
    return {i0, i1};
  }
  // The bounding range of the elements of rows [a, b).
  Interval span(int64_t a, int64_t b) const {
    return {std::min(first(a), first(b - 1)), std::max(last(a), last(b - 1)) + 1};
  }
};

// The largest interval of [a, b) that none of `bad` meets (the first of equal ones).
Interval largest_gap(int64_t a, int64_t b, Intervals bad) {
  std::sort(bad.begin(), bad.end());
  Interval best{a, a};
  int64_t at = a;
  auto consider = [&](int64_t end) {
    if (end - at > best.second - best.first) best = {at, end};
  };
  for (const auto& [lo, hi] : bad) {
    if (lo >= hi) continue;
    if (lo > at) consider(std::min(lo, b));
    at = std::max(at, hi);
    if (at >= b) break;
  }
  if (at < b) consider(b);
  return best;
}

// The CPU engine's vector and scalar code give the same bits for these (IEEE operations,
// comparisons, copies); others (sin, exp, power, complex arithmetic ...) may differ in the last
// bit, so a cut must not move which elements the vector loop's tail gets.
bool exact_everywhere(const Instruction& ins) {
  bool floats = false;
  for (size_t k = 0; k < ins.operands.size(); ++k) {
    if (!ins.is_view(k)) continue;
    if (is_complex(ins.view(k).dtype())) return false;
    floats = floats || is_float(ins.view(k).dtype());
  }
  if (!floats || ins.info().family == Family::GENERATOR) return true;
  switch (ins.op) {
  case Opcode::ADD:
  case Opcode::SUBTRACT:
  case Opcode::MULTIPLY:
  case Opcode::DIVIDE:
  case Opcode::MAXIMUM:
  case Opcode::MINIMUM:
  case Opcode::FMAX:
  case Opcode::FMIN:
  case Opcode::COPYSIGN:
  case Opcode::EQUAL:
  case Opcode::NOT_EQUAL:
  case Opcode::GREATER:
  case Opcode::GREATER_EQUAL:
  case Opcode::LESS:
  case Opcode::LESS_EQUAL:
  case Opcode::LOGICAL_AND:
  case Opcode::LOGICAL_OR:
  case Opcode::LOGICAL_XOR:
  case Opcode::LOGICAL_NOT:
  case Opcode::IDENTITY:
  case Opcode::NEGATIVE:
  case Opcode::ABSOLUTE:
  case Opcode::SQRT:
  case Opcode::FLOOR:
  case Opcode::CEIL:
  case Opcode::TRUNC:
  case Opcode::RINT:
  case Opcode::ISNAN:
  case Opcode::ISINF:
  case Opcode::ISFINITE:
  case Opcode::SIGNBIT:
  case Opcode::WHERE:
    return true;
  default:
    return false;
  }
}

// How one item is cut: before part [ia, ib) of its rows [a, b) (ia == ib: all after).
struct Cut {
  int64_t ia = 0, ib = 0;
};

class Splitter {
public:
  Splitter(const Directory& dir, int me) : dir_(dir), me_(me) {}

  Cut cut(const LocalItem& it) {
    const Instruction& ins = it.ins;
    const bool whole = ins.out().ndim() == 0;
    const RowMap out(ins.out(), whole);
    Intervals bad;
    bool self_overlap = false;
    for (size_t k = 1; k < ins.operands.size(); ++k) {
      if (!ins.is_view(k)) continue;
      const View& v = ins.view(k);
      const RowMap m(v, whole);
      auto d = dir_.find(v.base.get());
      if (d == dir_.end()) return {it.a, it.a};
      bad.push_back(m.touching(it.a, it.b, -kFar, d->second.dist.lo(me_)));
      bad.push_back(m.touching(it.a, it.b, d->second.dist.hi(me_), kFar));
      for (const Interval& t : written_[v.base.get()])
        bad.push_back(m.touching(it.a, it.b, t.first, t.second));
      if (v.base == ins.out().base && !(v == ins.out()) && overlaps(v, ins.out()))
        self_overlap = true; // the pieces would see each other's writes
    }
    if (self_overlap) return {it.a, it.a};
    for (const Intervals* list : {&written_[ins.out().base.get()], &read_[ins.out().base.get()]})
      for (const Interval& t : *list) bad.push_back(out.touching(it.a, it.b, t.first, t.second));
    auto [ia, ib] = largest_gap(it.a, it.b, bad);
    if (!whole && ins.info().family == Family::ELEMENTWISE &&
        !exact_everywhere(ins)) { // cuts on 64-element multiples of the view
      const int64_t row = row_elements(ins.out());
      const int64_t align = row > 0 ? 64 / std::gcd(row, int64_t(64)) : 1;
      if (ia != it.a) ia = ceil_div(ia, align) * align;
      if (ib != it.b) ib = floor_div(ib, align) * align;
    }
    if (it.min_rows > 1) { // every piece keeps min_rows rows
      if (ia != it.a && ia - it.a < it.min_rows) ia = it.a + it.min_rows;
      if (ib != it.b && it.b - ib < it.min_rows) ib = it.b - it.min_rows;
      if (ib - ia < it.min_rows) ib = ia;
    }
    if (ib <= ia) return {it.a, it.a};
    return {ia, ib};
  }

  // The after part of `it` (rows [p, q)) runs behind later before parts.
  void defer(const LocalItem& it, int64_t p, int64_t q) {
    if (p >= q) return;
    const Instruction& ins = it.ins;
    const bool whole = ins.out().ndim() == 0;
    written_[ins.out().base.get()].push_back(RowMap(ins.out(), whole).span(p, q));
    for (size_t k = 1; k < ins.operands.size(); ++k)
      if (ins.is_view(k))
        read_[ins.view(k).base.get()].push_back(RowMap(ins.view(k), whole).span(p, q));
  }

private:
  const Directory& dir_;
  int me_;
  std::unordered_map<const Base*, Intervals> written_, read_; // by the after parts so far
};

int64_t elements(const Instruction& ins, int64_t p, int64_t q) {
  return ins.out().ndim() == 0 ? 1 : (q - p) * row_elements(ins.out());
}

// A FREEd temporary of the phase whose before and after parts can be separate bases: every
// access through one view, first a write, by instructions cut alike.
std::unordered_map<const Base*, BasePtr> separable(const std::vector<LocalItem>& items,
                                                   const std::vector<Cut>& cuts,
                                                   const std::unordered_set<const Base*>& settled) {
  struct Use {
    const View* view = nullptr;
    size_t first_item = 0;
    bool ok = true, freed = false;
  };
  std::map<const Base*, Use> uses; // ordered: the same on every run
  for (size_t i = 0; i < items.size(); ++i) {
    const LocalItem& it = items[i];
    if (!it.rows) {
      const Base* b = it.ins.out().base.get();
      if (it.ins.op == Opcode::FREE && uses.count(b))
        uses[b].freed = true;
      else
        uses[b].ok = false; // a SYNC, a fallback's operand
      if (!it.rows && it.ins.op != Opcode::FREE)
        for (size_t k = 1; k < it.ins.operands.size(); ++k)
          if (it.ins.is_view(k)) uses[it.ins.view(k).base.get()].ok = false;
      continue;
    }
    for (size_t k = 0; k < it.ins.operands.size(); ++k) {
      if (!it.ins.is_view(k)) continue;
      const View& v = it.ins.view(k);
      auto [u, fresh] = uses.try_emplace(v.base.get());
      if (fresh) {
        u->second.view = &v;
        u->second.first_item = i;
        u->second.ok = k == 0;
        continue;
      }
      const Cut& c0 = cuts[u->second.first_item];
      const LocalItem& i0 = items[u->second.first_item];
      if (u->second.freed || !(v == *u->second.view) || i0.a != it.a || i0.b != it.b ||
          c0.ia != cuts[i].ia || c0.ib != cuts[i].ib || (k > 0 && i == u->second.first_item))
        u->second.ok = false;
    }
  }
  std::unordered_map<const Base*, BasePtr> out;
  for (const auto& [b, u] : uses) {
    if (!u.ok || !u.freed || !u.view || settled.count(b)) continue;
    const Cut& c = cuts[u.first_item];
    if (c.ia >= c.ib) continue; // all after: nothing to separate
    out[b] = make_base(b->name + "~after", b->dtype, b->nelem);
  }
  return out;
}

Instruction renamed(Instruction ins, const std::unordered_map<const Base*, BasePtr>& names) {
  for (size_t k = 0; k < ins.operands.size(); ++k) {
    if (!ins.is_view(k)) continue;
    auto it = names.find(ins.view(k).base.get());
    if (it != names.end()) ins.view(k).base = it->second;
  }
  return ins;
}
} // namespace

void append_rows(const Instruction& ins, int64_t a, int64_t b, std::vector<Instruction>& out) {
  Instruction s = ins;
  if (ins.out().ndim() > 0) {
    for (size_t k = 0; k < s.operands.size(); ++k) {
      if (!s.is_view(k)) continue;
      View& v = s.view(k);
      if (v.ndim() == 0) continue;
      v.offset += a * v.stride[0];
      v.shape[0] = b - a;
    }
  }
  const int64_t first = ins.out().ndim() > 0 ? a * row_elements(ins.out()) : 0;
  if (ins.op == Opcode::RANDOM && first > 0)
    s.operands[2] = Scalar::of_uint(ins.constant(2).as_uint() + uint64_t(first));
  out.push_back(s);
  if (ins.op == Opcode::RANGE && first > 0) {
    const DType t = ins.out().dtype();
    const Scalar shift =
        is_float(t) ? Scalar::of_float(double(first), t) : Scalar::of_int(first).cast(t);
    out.push_back(Instruction(Opcode::ADD, {s.view(0), s.view(0), shift}));
  }
}

PhaseSplit split_phase(const std::vector<LocalItem>& items, Wait wait, const Directory& dir, int me,
                       const std::unordered_set<const Base*>& settled) {
  PhaseSplit s;
  for (const LocalItem& it : items)
    if (it.rows) s.elements += elements(it.ins, it.a, it.b);
  if (wait != Wait::rows) {
    Program& whole = wait == Wait::none ? s.before : s.after;
    for (const LocalItem& it : items) {
      if (it.rows)
        append_rows(it.ins, it.a, it.b, whole.instrs);
      else
        whole.instrs.push_back(it.ins);
    }
    if (wait == Wait::all) s.after_elements = s.elements;
    return s;
  }
  Splitter splitter(dir, me);
  std::vector<Cut> cuts(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const LocalItem& it = items[i];
    if (!it.rows) continue;
    cuts[i] = splitter.cut(it);
    if (cuts[i].ia < cuts[i].ib) {
      splitter.defer(it, it.a, cuts[i].ia);
      splitter.defer(it, cuts[i].ib, it.b);
    } else {
      splitter.defer(it, it.a, it.b);
    }
  }
  const auto names = separable(items, cuts, settled);
  for (size_t i = 0; i < items.size(); ++i) {
    const LocalItem& it = items[i];
    if (!it.rows) {
      s.after.instrs.push_back(renamed(it.ins, names));
      continue;
    }
    const auto [ia, ib] = cuts[i];
    if (ia < ib) {
      append_rows(it.ins, ia, ib, s.before.instrs);
      s.before_elements += elements(it.ins, ia, ib);
      const Instruction r = renamed(it.ins, names);
      if (it.a < ia) append_rows(r, it.a, ia, s.after.instrs);
      if (ib < it.b) append_rows(r, ib, it.b, s.after.instrs);
      s.after_elements += elements(it.ins, it.a, ia) + elements(it.ins, ib, it.b);
    } else {
      append_rows(it.ins, it.a, it.b, s.after.instrs);
      s.after_elements += elements(it.ins, it.a, it.b);
    }
  }
  for (const LocalItem& it : items) // a separated temporary's FREE ends the before part too
    if (!it.rows && it.ins.op == Opcode::FREE && names.count(it.ins.out().base.get()))
      s.before.instrs.push_back(it.ins);
  return s;
}

} // namespace hassium::cluster
