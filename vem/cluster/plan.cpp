// plan_flush: owner computes, per-phase exchanges, chunked reductions, fallbacks to rank 0.
#include "vem/cluster/plan.h"

#include <algorithm>
#include <unordered_set>

#include "core/error.h"
#include "core/sync_span.h"
#include "vem/cluster/overlap.h"

namespace hassium::cluster {

namespace {
constexpr uint64_t kTemporaryIds = uint64_t(1) << 62;
// Reductions, scans and sorts along a later axis are cut by rows only where every rank's slice
// has this many rows: the CPU engine splits such a loop along its first level when that has 8
// or more iterations and along the axis otherwise, and the split decides the summation order.
constexpr int64_t kMinRows = 8;

// The element-wise operation that combines two partial results of a reduction.
Opcode combine_op(Opcode reduce) {
  switch (reduce) {
  case Opcode::ADD_REDUCE:
    return Opcode::ADD;
  case Opcode::MULTIPLY_REDUCE:
    return Opcode::MULTIPLY;
  case Opcode::MINIMUM_REDUCE:
    return Opcode::MINIMUM;
  case Opcode::MAXIMUM_REDUCE:
    return Opcode::MAXIMUM;
  case Opcode::LOGICAL_AND_REDUCE:
    return Opcode::LOGICAL_AND;
  case Opcode::LOGICAL_OR_REDUCE:
    return Opcode::LOGICAL_OR;
  case Opcode::LOGICAL_XOR_REDUCE:
    return Opcode::LOGICAL_XOR;
  case Opcode::BITWISE_AND_REDUCE:
    return Opcode::BITWISE_AND;
  case Opcode::BITWISE_OR_REDUCE:
    return Opcode::BITWISE_OR;
  case Opcode::BITWISE_XOR_REDUCE:
    return Opcode::BITWISE_XOR;
  default:
    break;
  }
  HS_INTERNAL_ASSERT(false) << "cluster: no combination for " << op_info(reduce).name;
  return reduce;
}

class Planner {
public:
  Planner(Directory& dir, int me, int ranks, const SplitPolicy& split)
      : dir_(dir), me_(me), ranks_(ranks), split_(split) {
    cur_ = fresh();
  }

  FlushPlan run(const Program& program) {
    for (const Instruction& ins : program.instrs) dispatch(ins);
    close();
    for (Phase& p : plan_.phases)
      for (auto* lists : {&p.in, &p.out, &p.post_in, &p.post_out})
        for (auto& l : *lists) merge(l);
    return std::move(plan_);
  }

private:
  // What a SYNC gathers (core/sync_span.h): the span of its view when that is a small part of a
  // large base, a few times per write of the base (a pivot read of a matrix the ranks keep
  // rewriting); else the whole base (a host that reads much of it). Every rank decides alike.
  Sync sync_of(const Instruction& ins) {
    Base* base = ins.out().base.get();
    auto it = dir_.find(base);
    if (it == dir_.end()) return {base, 0, base->nelem};
    const auto [lo, hi] = sync_span(ins.out(), it->second.partial_syncs);
    const Sync s{base, lo, hi};
    if (!s.whole()) ++it->second.partial_syncs;
    return s;
  }

  Phase fresh() const {
    Phase p;
    for (auto* l : {&p.in, &p.out, &p.post_in, &p.post_out}) l->resize(size_t(ranks_));
    return p;
  }
  void close() {
    // Every rank keeps the same phases (each ends with a collective), so what counts is what
    // any rank does in it, not this rank's part.
    if (items_) {
      bool receives = false;
      std::unordered_set<const Base*> settled = used_;
      for (auto* lists : {&cur_.in, &cur_.out, &cur_.post_in, &cur_.post_out})
        for (const auto& l : *lists) {
          receives = receives || (lists == &cur_.in && !l.empty());
          for (const Piece& p : l) settled.insert(p.base);
        }
      for (const Sync& s : cur_.syncs) settled.insert(s.base);
      // Split where it can pay: overlap chosen, and enough work per rank to hide anything
      // (the phase's elements over all ranks: every rank decides alike).
      const bool rows = split_.overlap && phase_elements_ / ranks_ >= split_.min_elements;
      const Wait wait = !receives || ranks_ == 1 ? Wait::none : rows ? Wait::rows : Wait::all;
      PhaseSplit split = split_phase(local_, wait, dir_, me_, settled);
      cur_.before = std::move(split.before);
      cur_.after = std::move(split.after);
      cur_.before_elements = split.before_elements;
      cur_.after_elements = split.after_elements;
      cur_.elements = split.elements;
      for (const LocalItem& it : local_)
        for (size_t k = 0; k < it.ins.operands.size(); ++k)
          if (it.ins.is_view(k)) used_.insert(it.ins.view(k).base.get());
      plan_.phases.push_back(std::move(cur_));
    }
    items_ = 0;
    phase_elements_ = 0;
    cur_ = fresh();
    local_.clear();
    written_.clear();
    syncing_.clear();
  }
  static void merge(std::vector<Piece>& l) {
    std::sort(l.begin(), l.end(), [](const Piece& a, const Piece& b) {
      return a.id != b.id ? a.id < b.id : a.lo < b.lo;
    });
    std::vector<Piece> out;
    for (const Piece& p : l) {
      if (!out.empty() && out.back().id == p.id && p.lo <= out.back().hi)
        out.back().hi = std::max(out.back().hi, p.hi);
      else
        out.push_back(p);
    }
    l = std::move(out);
  }
  const BaseEntry& entry(const View& v) const {
    auto it = dir_.find(v.base.get());
    HS_INTERNAL_ASSERT(it != dir_.end()) << "cluster: base " << v.base->name << " not registered";
    return it->second;
  }
  // Rank `to` needs span `s` of v's base from its owner, in lists in/out of the phase.
  void need(std::vector<std::vector<Piece>>& in, std::vector<std::vector<Piece>>& out, int to,
            const Span& s, const View& v) {
    const Piece p{entry(v).id, v.base.get(), s.lo, s.hi};
    if (to == me_) in[size_t(s.owner)].push_back(p);
    if (s.owner == me_) out[size_t(to)].push_back(p);
  }

  void dispatch(const Instruction& ins) {
    if (ins.op == Opcode::FREE) {
      if (syncing_.count(ins.out().base.get())) close();
      ++items_;
      local_.push_back({ins});
      return;
    }
    if (ins.op == Opcode::SYNC) {
      ++items_;
      if (me_ == 0) local_.push_back({ins});
      cur_.syncs.push_back(sync_of(ins));
      if (!cur_.syncs.back().whole()) plan_.partial_syncs.insert(&ins);
      syncing_.insert(ins.out().base.get());
      return;
    }
    if (auto it = dir_.find(ins.out().base.get()); it != dir_.end()) it->second.partial_syncs = 0;
    if (ins.out().size() == 0) return; // writes nothing
    const OpInfo& info = ins.info();
    switch (info.family) {
    case Family::ELEMENTWISE:
      return place(ins, 1);
    case Family::REDUCTION:
      return ins.axis() == 0 ? reduce_axis0(ins) : place(ins, kMinRows);
    case Family::SCAN:
      return ins.axis() == 0 ? fallback(ins) : place(ins, kMinRows);
    case Family::GENERATOR:
      if (ins.op == Opcode::RANGE && is_float(ins.out().dtype())) {
        // float(i) + float(first) is float(i + first) while every position is exact.
        const int bits = ins.out().dtype() == DType::FLOAT32 ? 24 : 53;
        if (ins.out().size() > (int64_t(1) << bits)) return fallback(ins);
      }
      return place(ins, 1);
    case Family::EXTENSION:
      if ((ins.op == Opcode::SORT || ins.op == Opcode::ARGSORT) && ins.axis() > 0)
        return place(ins, kMinRows);
      return fallback(ins);
    default:
      return fallback(ins);
    }
  }

  // Owner computes: each rank the rows of the output it owns, inputs' remote rows fetched (the
  // inputs' dim 0 runs with the output's rows).
  void place(const Instruction& ins, int64_t min_rows) {
    const View& out = ins.out();
    auto rows = owned_rows(out, entry(out).dist, ranks_);
    if (!rows) return fallback(ins);
    const auto nonempty =
        std::count_if(rows->begin(), rows->end(), [](const auto& r) { return r.first < r.second; });
    if (nonempty > 1)
      for (const auto& [a, b] : *rows)
        if (a < b && b - a < min_rows) return fallback(ins);
    std::vector<std::pair<int, std::pair<Span, const View*>>> needs;
    std::vector<Span> spans;
    for (int r = 0; r < ranks_; ++r) {
      const auto [a, b] = (*rows)[size_t(r)];
      if (a >= b) continue;
      for (size_t k = 1; k < ins.operands.size(); ++k) {
        if (!ins.is_view(k)) continue;
        const View& v = ins.view(k);
        spans.clear();
        if (out.ndim() == 0 || v.ndim() == 0)
          remote_spans(v, 0, 0, v.ndim() ? v.shape[0] : 1, entry(v).dist, r, spans);
        else
          remote_spans(v, 0, a, b, entry(v).dist, r, spans);
        for (const Span& s : spans) needs.push_back({r, {s, &v}});
      }
    }
    bool conflict = syncing_.count(out.base.get()) > 0;
    for (const auto& n : needs) conflict = conflict || written_.count(n.second.second->base.get());
    if (conflict) close();
    ++items_;
    phase_elements_ += out.size();
    for (const auto& [to, sv] : needs) need(cur_.in, cur_.out, to, sv.first, *sv.second);
    const auto [a, b] = (*rows)[size_t(me_)];
    if (a < b) local_.push_back({ins, true, a, b, min_rows});
    written_.insert(out.base.get());
  }

  // Reduction along axis 0, pairwise and element-wise: level k + 1 holds row i = row 2i op
  // row 2i + 1 of level k (an odd last row carried as is), until one row is left, the result.
  // Element-wise instructions give the same bits however the rows are cut, so the result is the
  // same for every P (README.md, Reductions); each level's pairs are local but at the cuts.
  void reduce_axis0(const Instruction& ins) {
    const View& in = ins.view(1);
    const View& out = ins.out();
    const int64_t rows = in.shape[0], rest = out.size();
    if (rows == 0) return fallback(ins);
    const Opcode op = combine_op(ins.op);
    auto row_shape = [&](int64_t n) {
      Dims d{n};
      for (int64_t x : out.shape) d.push_back(x);
      return d;
    };
    View cur = in;
    for (int64_t n = rows; n > 1;) {
      const int64_t half = n / 2, next = n - half;
      BasePtr t = make_base("cluster_level" + std::to_string(next_temp_ - kTemporaryIds),
                            out.dtype(), next * rest);
      BaseEntry e;
      e.id = next_temp_++;
      e.hold = t;
      e.dist = level_dist(cur, next, rest);
      dir_[t.get()] = e;
      plan_.temporaries.push_back(t);
      View even = cur;
      even.shape[0] = half;
      even.stride[0] = 2 * cur.stride[0];
      View odd = even;
      odd.offset += cur.stride[0];
      place(Instruction(op, {View::contiguous(t, row_shape(half)), even, odd}), 1);
      if (next > half) {
        View last = cur;
        last.offset += (n - 1) * cur.stride[0];
        last.shape[0] = 1;
        place(Instruction(Opcode::IDENTITY, {View::contiguous(t, row_shape(1), half * rest), last}),
              1);
      }
      if (cur.base != in.base) dispatch(Instruction(Opcode::FREE, {View::whole(cur.base)}));
      cur = View::contiguous(t, row_shape(next));
      n = next;
    }
    View first = cur;
    first.shape.erase(first.shape.begin());
    first.stride.erase(first.stride.begin());
    place(Instruction(Opcode::IDENTITY, {out, first}), 1);
    if (cur.base != in.base) dispatch(Instruction(Opcode::FREE, {View::whole(cur.base)}));
  }

  // A level of `next` rows made from `cur`'s rows: rank r's rows are the pairs that start in
  // its rows of `cur` (block_dist where those rows are not cut by owner).
  Dist level_dist(const View& cur, int64_t next, int64_t rest) const {
    Dist d = block_dist(next * rest, rest, ranks_);
    auto rows = owned_rows(cur, entry(cur).dist, ranks_);
    if (!rows || cur.stride[0] <= 0) return d;
    int64_t start = 0;
    for (int r = 1; r < ranks_; ++r) {
      const auto [a, b] = (*rows)[size_t(r) - 1];
      if (a < b) start = b;
      d.bounds[size_t(r)] = std::min((start + 1) / 2, next) * rest;
    }
    return d;
  }

  // Not distributed: rank 0 gathers the bounding range of every operand, runs the instruction
  // and sends the output's range back to its owners; a phase of its own.
  void fallback(const Instruction& ins) {
    ++plan_.fallbacks;
    const View& out = ins.out();
    if (ranks_ == 1) {
      ++items_;
      local_.push_back({ins});
      written_.insert(out.base.get());
      return;
    }
    close();
    ++items_;
    cur_.fallback = true;
    std::vector<Span> spans;
    for (size_t k = 0; k < ins.operands.size(); ++k) {
      if (!ins.is_view(k)) continue;
      spans.clear();
      remote_bounds(ins.view(k), entry(ins.view(k)).dist, 0, spans);
      for (const Span& s : spans) need(cur_.in, cur_.out, 0, s, ins.view(k));
    }
    if (me_ == 0) local_.push_back({ins});
    spans.clear();
    remote_bounds(out, entry(out).dist, 0, spans);
    for (const Span& s : spans) {
      const Piece p{entry(out).id, out.base.get(), s.lo, s.hi};
      if (me_ == 0) cur_.post_out[size_t(s.owner)].push_back(p);
      if (me_ == s.owner) cur_.post_in[0].push_back(p);
    }
    close();
  }

  Directory& dir_;
  int me_, ranks_;
  SplitPolicy split_;
  FlushPlan plan_;
  Phase cur_;
  std::vector<LocalItem> local_; // this rank's part of the phase at hand
  std::unordered_set<const Base*> written_, syncing_;
  std::unordered_set<const Base*> used_; // by this rank's earlier phases
  uint64_t next_temp_ = kTemporaryIds;
  int64_t items_ = 0;          // instructions placed in the phase at hand, on any rank
  int64_t phase_elements_ = 0; // their output elements, all ranks' rows
};
} // namespace

namespace {
// `base` cut where rank r's rows of `partner` (on a distributed base) meet `mine` (a view of
// `base` of the same shape, row by row); false where they cannot be matched so.
bool cut_like(Dist& d, const Base& base, const View& mine, const View& partner,
              const Directory& dir, int ranks) {
  auto known = dir.find(partner.base.get());
  if (known == dir.end() || mine.shape != partner.shape || mine.ndim() == 0 ||
      mine.stride[0] <= 0 || partner.stride[0] <= 0)
    return false;
  auto rows = owned_rows(partner, known->second.dist, ranks);
  if (!rows) return false;
  const int64_t row = mine.stride[0];
  if (d.row != row && base.nelem % row == 0 && mine.offset % row == 0 && row > 1)
    d = block_dist(base.nelem, row, ranks);
  int64_t start = 0;
  for (int r = 1; r < ranks; ++r) {
    const auto [a, b] = (*rows)[size_t(r) - 1];
    if (a < b) start = b;
    const int64_t at = mine.offset + start * row;
    d.bounds[size_t(r)] = std::clamp(at - at % d.row, d.bounds[size_t(r) - 1], base.nelem);
  }
  return true;
}
} // namespace

Dist aligned_dist(const Base& base, const Program& program, const std::vector<const View*>& views,
                  const Directory& dir, int ranks) {
  Dist d = block_dist(base.nelem, row_length(base, views), ranks);
  // Cut as the element-wise instruction that reads it into a distributed base computes: then
  // that consumer finds its rows of the temporary at home (the frontend's last temporary of an
  // expression is read by the assignment to the user's array).
  for (const Instruction& ins : program.instrs) {
    if (ins.info().family != Family::ELEMENTWISE || ins.out().base.get() == &base) continue;
    for (size_t k = 1; k < ins.operands.size(); ++k)
      if (ins.is_view(k) && ins.view(k).base.get() == &base &&
          cut_like(d, base, ins.view(k), ins.out(), dir, ranks))
        return d;
  }
  // Else as its first writer's inputs.
  for (const Instruction& ins : program.instrs) {
    if (ins.is_system() || ins.out().base.get() != &base) continue;
    for (size_t k = 1; k < ins.operands.size(); ++k)
      if (ins.is_view(k) && cut_like(d, base, ins.out(), ins.view(k), dir, ranks)) return d;
    break;
  }
  return d;
}

FlushPlan plan_flush(const Program& program, Directory& dir, int me, int ranks,
                     const SplitPolicy& split) {
  return Planner(dir, me, ranks, split).run(program);
}

} // namespace hassium::cluster
