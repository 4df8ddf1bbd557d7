// forward_copies: a temporary copy of a view, only read or updated and stored back, becomes the
// view itself; a reduction's or product's temporary result copied into a view is written there.
//
// Contract: a copy `IDENTITY T, V` (T a temporary: the copy writes all of its base, its first
// access in the program, not SYNCed, FREEd within kWindow instructions; same dtype and shape
// as V, a view of another base B) goes in one of two ways:
//   read     T is only read until its FREE: every read of T becomes a read of V, and the copy
//            goes, if no instruction between the copy and T's last read writes or FREEs B
//            where it overlaps V (reading B there is fine: B does not change).
//   update   T is written by element-wise instructions that write all of it (`t -= x`), then
//            stored back by `IDENTITY V, T` (the same view, dtype) as T's last use before its
//            FREE: those instructions write and read V instead, and the copy and the store go,
//            if nothing else between the copy and the store touches B where it overlaps V
//            (nor SYNCs or FREEs B).
// T's reads must be T's whole view, or (T of one element) any view of it with all strides 0:
// that becomes the same broadcast of V's element. T's FREE stays (T may hold a buffer from an
// earlier flush). The instructions between see the same values in the same order, so every
// SYNCed base and every base that outlives the program is unchanged.
// And the other way, a copy `IDENTITY V, T` of a temporary result into a view:
//   result   T is written whole by one reduction or MATMUL P (T's first access), read only by
//            the copy (same dtype; the copy reads all of T, and V has T's elements in the same
//            order: equal shapes up to extents of 1), and FREEd within kWindow instructions:
//            P writes V instead and the copy goes, if none of P's inputs overlaps V (the
//            verifier's rule for these outputs) and nothing between P and the copy touches B
//            where it overlaps V (nor SYNCs or FREEs B). NumPy's `R[k, j] = np.dot(q, a)`,
//            `out[i] = x.sum()`: the result cannot fuse with its copy (another loop shape), so
//            the copy is a kernel of its own, which this saves. Element-wise producers are left
//            to fusion, which contracts their temporaries (remove_identity's `into a view`).
//
// This is what a loop over elements records: NumPy's `A[i, j] -= x` reads the element as a new
// scalar (a copy), subtracts in place, and stores it back; `A[i, j] / A[j, j]` copies both
// elements first. Each such update shrinks from four instructions (copy, op, store, FREE) to two
// (op, FREE), and a read from two to one, which is what the fuser and the engine then pay for.
// Complexity: O(operands * kWindow): each copy looks only at the instructions up to its FREE,
// and only when that FREE is at most kWindow instructions away (the copies of a loop body).
#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "core/pointer_index.h"
#include "core/thread_scratch.h"
#include "filters/filters.h"
#include "filters/rewrite.h"

namespace hassium {

namespace {

constexpr size_t kWindow = 64;

// T read as `u` becomes this view of V: V itself for T's whole view (or, T of one element,
// any view of T's shape), else V's one element broadcast to u's shape (T has one element and
// u strides 0).
View forwarded(const View& u, const View& whole_t, const View& v) {
  if (u.identical(whole_t) || u.shape == whole_t.shape) return v;
  View b;
  b.base = v.base;
  b.offset = v.offset;
  b.shape = u.shape;
  b.stride.assign(u.shape.size(), 0);
  return b;
}

// u, a view of T's base, can be forwarded (see forwarded()).
bool forwardable(const View& u, const View& whole_t) {
  if (u.identical(whole_t)) return true;
  if (u.base->nelem != 1 || u.offset != 0) return false;
  for (int64_t s : u.stride)
    if (s != 0) return false;
  return true;
}

// The view P writes when its output `tv` (all of T) becomes V: V with tv's shape, when the two
// list the same elements in the same order (equal shapes once extents of 1 are dropped; an
// extent of 1 gets stride 0). Empty (no base) when they do not.
View result_view(const View& tv, const View& v) {
  View r;
  r.offset = v.offset;
  r.shape = tv.shape;
  r.stride.assign(tv.shape.size(), 0);
  size_t k = 0;
  for (size_t d = 0; d < tv.shape.size(); ++d) {
    if (tv.shape[d] == 1) continue;
    while (k < v.shape.size() && v.shape[k] == 1) ++k;
    if (k == v.shape.size() || v.shape[k] != tv.shape[d]) return View{};
    r.stride[d] = v.stride[k++];
  }
  while (k < v.shape.size() && v.shape[k] == 1) ++k;
  if (k != v.shape.size()) return View{};
  r.base = v.base;
  return r;
}

// An instruction whose result cannot fuse with a copy of it (the `result` rule's producers).
bool is_result_producer(const Instruction& ins) {
  return ins.op == Opcode::MATMUL || ins.info().family == Family::REDUCTION;
}

// Tries the `result` rewrite of the copy `IDENTITY V, T` at c (see the top), T's producer
// being writer[T]; marks the copy and edits the producer on success.
bool try_result(Program& p, size_t c, std::vector<bool>& drop,
                const std::unordered_map<const Base*, size_t>& writer) {
  const Instruction& copy = p.instrs[c];
  if (copy.op != Opcode::IDENTITY || !copy.is_view(1)) return false;
  const View v = copy.out(), t = copy.view(1);
  const Base *tb = t.base.get(), *b = v.base.get();
  if (tb == b || t.dtype() != v.dtype() || t.size() != tb->nelem ||
      (tb->nelem != 1 && !filters::covers_base(t)))
    return false;
  auto w = writer.find(tb);
  if (w == writer.end() || w->second >= c || c - w->second > kWindow) return false;
  const size_t at = w->second;
  Instruction& producer = p.instrs[at];
  if (!filters::covers_base(producer.out()) && tb->nelem != 1) return false;
  const View target = result_view(producer.out(), v);
  if (!target.base) return false;
  for (const View* in : producer.inputs())
    if (in->base.get() == b && overlaps(*in, v)) return false;
  for (size_t j = at + 1; j < c; ++j) {
    if (drop[j]) continue;
    const Instruction& g = p.instrs[j];
    if (filters::touches(g, tb)) return false; // T is read by the copy only
    if (g.is_system()) {
      if (g.out().base.get() == b) return false;
      continue;
    }
    for (size_t k = 0; k < g.operands.size(); ++k)
      if (g.is_view(k) && g.view(k).base.get() == b && overlaps(g.view(k), v)) return false;
  }
  // After the copy, T may only be FREEd (within the window).
  const size_t end = std::min(p.instrs.size(), c + 1 + kWindow);
  for (size_t j = c + 1; j < end; ++j) {
    if (drop[j] || !filters::touches(p.instrs[j], tb)) continue;
    if (p.instrs[j].op != Opcode::FREE) return false;
    producer.operands[0] = target;
    drop[c] = true;
    return true;
  }
  return false;
}

bool is_candidate(const Instruction& c) {
  if (c.op != Opcode::IDENTITY || !c.is_view(1)) return false;
  const View &t = c.out(), &v = c.view(1);
  return t.base != v.base && t.dtype() == v.dtype() && t.shape == v.shape &&
         filters::covers_base(t);
}

// Tries the rewrite of the copy at c; marks and edits p on success.
bool try_forward(Program& p, size_t c, std::vector<bool>& drop,
                 const std::vector<long>& first_use) {
  if (first_use[c] != long(c)) return false;
  const View t = p.instrs[c].out(); // T's whole view
  const View v = p.instrs[c].view(1);
  const Base *tb = t.base.get(), *b = v.base.get();
  const size_t end = std::min(p.instrs.size(), c + 1 + kWindow);
  size_t free_at = 0, store = 0, last_use = c;
  size_t first_b_write = SIZE_MAX; // first write or FREE of B over V
  bool written = false;            // T written after the copy
  bool touched = false;            // B touched over V (or SYNCed, FREEd) before the store
  for (size_t j = c + 1; j < end; ++j) {
    if (drop[j]) continue;
    const Instruction& g = p.instrs[j];
    if (g.op == Opcode::FREE && g.out().base.get() == tb) {
      free_at = j;
      break;
    }
    if (store) { // the store is T's last use; what follows it sees V as it would have
      if (filters::touches(g, tb)) return false;
      continue;
    }
    if (g.op == Opcode::IDENTITY && g.is_view(1) && g.view(1).identical(t) &&
        g.out().identical(v) && g.out().dtype() == t.dtype()) {
      store = j;
      continue;
    }
    if (g.is_system()) {
      if (g.out().base.get() == tb) return false; // SYNC of T
      if (g.out().base.get() == b) {
        touched = true;
        if (g.op == Opcode::FREE) first_b_write = std::min(first_b_write, j);
      }
      continue;
    }
    for (size_t k = 0; k < g.operands.size(); ++k) {
      if (!g.is_view(k)) continue;
      const View& u = g.view(k);
      if (u.base.get() == tb) {
        last_use = j;
        if (k == 0) { // T written: all of it, element-wise
          if (g.info().family != Family::ELEMENTWISE || !u.identical(t)) return false;
          written = true;
        } else if (!forwardable(u, t)) {
          return false;
        }
      } else if (u.base.get() == b && overlaps(u, v)) {
        touched = true;
        if (k == 0) first_b_write = std::min(first_b_write, j);
      }
    }
  }
  if (!free_at) return false;
  if (written) {
    // update: T's writes become V's, so nothing else may see or change V meanwhile
    if (!store || touched) return false;
  } else if (store ? first_b_write < store : first_b_write <= last_use) {
    // read: every read of T must find V as the copy saw it (and the store write it back)
    return false;
  }
  drop[c] = true;
  if (store) drop[store] = true;
  for (size_t j = c + 1; j < free_at; ++j) {
    if (drop[j]) continue;
    for (auto& opnd : p.instrs[j].operands)
      if (View* u = std::get_if<View>(&opnd); u && u->base.get() == tb) *u = forwarded(*u, t, v);
  }
  return true;
}

} // namespace

Program forward_copies(Program p) {
  // Every rewrite removes a copy `IDENTITY X, Y` of a view: a program without one (most loop
  // bodies' flushes, also those full of products and reductions) has nothing to rewrite: one
  // scan instead of numbering its bases.
  if (std::none_of(p.instrs.begin(), p.instrs.end(), [](const Instruction& ins) {
        return ins.op == Opcode::IDENTITY && ins.is_view(1);
      }))
    return p;
  // first_use[i]: for a candidate copy at i, the first instruction touching its output's base.
  // writer[T]: the result producer that writes T as T's first access. Bases are numbered by
  // first appearance (a per-thread PointerIndex: no allocation per base once grown), and
  // first[id] is that appearance's instruction.
  std::vector<long> first_use(p.instrs.size(), -1);
  std::unordered_map<const Base*, size_t> writer;
  {
    thread_local PointerIndex tls_ids;
    thread_local std::vector<long> tls_first;
    PointerIndex& ids = pinned(tls_ids);
    std::vector<long>& first = pinned(tls_first);
    ids.reset(p.instrs.size());
    first.clear();
    auto first_of = [&](const Base* b, long i) {
      bool fresh;
      const uint32_t id = ids.insert(b, fresh);
      if (fresh) first.push_back(i);
      return first[id];
    };
    for (size_t i = 0; i < p.instrs.size(); ++i) {
      const Instruction& ins = p.instrs[i];
      for (size_t k = 0; k < ins.operands.size(); ++k)
        if (ins.is_view(k)) first_of(ins.view(k).base.get(), long(i));
      if (is_candidate(ins)) first_use[i] = first_of(ins.out().base.get(), long(i));
      if (is_result_producer(ins)) {
        const Base* out = ins.out().base.get();
        if (first_of(out, long(i)) == long(i) && !filters::reads(ins, out)) writer.emplace(out, i);
      }
    }
  }
  std::vector<bool> drop(p.instrs.size(), false);
  for (size_t i = 0; i < p.instrs.size(); ++i) {
    if (drop[i]) continue;
    if (is_candidate(p.instrs[i]) && try_forward(p, i, drop, first_use)) continue;
    try_result(p, i, drop, writer);
  }
  filters::erase_marked(p, drop);
  return p;
}

} // namespace hassium
