// FlushPolicy: instruction signatures, the rolling phase window and the loop-aligned cut rule.
#include "core/flush_policy.h"

#include <algorithm>
#include <variant>

namespace hassium {

namespace {

// A 64-bit finalizer (the splitmix64 constants): every input bit affects every output bit.
uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

uint64_t stride_class(int64_t s) {
  return s == 0 ? 0 : s == 1 ? 1 : 2;
}

constexpr uint64_t power(uint64_t b, size_t n) {
  uint64_t r = 1;
  for (size_t i = 0; i < n; ++i) r *= b;
  return r;
}

} // namespace

uint64_t FlushPolicy::signature(const Instruction& ins) {
  // Operand words folded by a multiply-add, one finalizer at the end: a few ns per instruction.
  uint64_t h = uint64_t(ins.op) + 1;
  for (const Operand& opnd : ins.operands) {
    uint64_t s;
    if (const View* v = std::get_if<View>(&opnd)) {
      s = 1 | uint64_t(v->base->dtype) << 8 | uint64_t(v->stride.size()) << 16;
      uint64_t classes = 0;
      for (int64_t st : v->stride) classes = classes * 3 + stride_class(st);
      s ^= classes << 24;
    } else {
      s = 2 | uint64_t(std::get<Scalar>(opnd).dtype) << 8;
    }
    h = h * 0x9e3779b97f4a7c15ULL + s;
  }
  return mix(h);
}

void FlushPolicy::push(uint64_t sig) {
  static_assert((kWindow & (kWindow - 1)) == 0, "kWindow must be a power of two");
  constexpr uint64_t kBasePow = power(kBase, kWindow);
  window_ = window_ * kBase + sig - ring_[pos_] * kBasePow;
  ring_[pos_] = sig;
  pos_ = (pos_ + 1) & (kWindow - 1);
  ++position_;
}

void FlushPolicy::flushed_elsewhere() {
  seen_ = false;
  after_forced_ = false;
  last_pending_ = 0;
}

FlushPolicy::Cut FlushPolicy::decide(uint64_t sig, int64_t pending, int64_t threshold) {
  push(sig);
  if (!align_) return pending > threshold ? cut(Cut::FIRST) : Cut::NONE;
  // The pending program shrank without a flush of ours: someone else flushed.
  if (pending <= last_pending_) flushed_elsewhere();
  last_pending_ = pending;
  recurrence_ = recurrence(uint64_t(kLimitFactor * threshold));
  const bool at_anchor = has_anchor_ && window_ == anchor_;
  bool adopted = false;
  if (at_anchor) {
    seen_ = true;
    period_ = position_ - anchor_position_;
    anchor_position_ = position_;
  } else if (lengthen_pause_ == 0 && has_anchor_ && recurrence_ > period_) {
    // Rule 0: a longer loop than the anchor's; anchored here, as if it had just recurred.
    ++stats_.lengthened;
    if (!lengthened_) {
      shorter_anchor_ = anchor_;
      shorter_period_ = period_;
      lengthened_ = true;
    }
    anchor_ = window_;
    anchor_position_ = position_;
    period_ = recurrence_;
    seen_ = true;
    adopted = true;
    cut_at_anchor_ = false;
  }
  if (!has_anchor_) return first_cut(pending, threshold);
  // Rule 4: the anchor's loop ended (late by more than a period: a triangular sweep's period
  // grows a little every row).
  if (!at_anchor && !adopted && cut_at_anchor_ && period_ > 0 &&
      position_ - anchor_position_ > 2 * period_)
    return cut(Cut::ENDED);
  // At the anchor: past the threshold, after a forced cut, or when waiting for the anchor's
  // next occurrence (a period away) would pass the limit: programs stay whole periods.
  const int64_t limit = kLimitFactor * threshold;
  if ((at_anchor || adopted) &&
      (pending > threshold || after_forced_ || pending + int64_t(period_) >= limit))
    return cut(Cut::ALIGNED);
  if (pending > limit) return cut(Cut::FORCED);
  return Cut::NONE;
}

FlushPolicy::Cut FlushPolicy::first_cut(int64_t pending, int64_t threshold) {
  if (pending <= threshold) {
    canon_period_ = 0;
    return Cut::NONE;
  }
  // Rule 1 in a loop (the window recurs p apart, p at most half the threshold): at the phase of
  // its body whose window hashes least, found over one period of windows. (A window whose slot
  // of seen_at_ another one took shows no period: the search goes on with the one it has.)
  const uint64_t p = recurrence_ ? recurrence_ : canon_period_;
  if (p == 0 || 2 * p > uint64_t(threshold) || pending > threshold + 3 * int64_t(p))
    return cut(Cut::FIRST);
  if (p != canon_period_) {
    canon_period_ = p;
    canon_seen_ = 0;
    canon_least_ = window_;
  }
  if (canon_seen_ < p) {
    canon_least_ = std::min(canon_least_, window_);
    ++canon_seen_;
    return Cut::NONE;
  }
  return window_ == canon_least_ ? cut(Cut::FIRST) : Cut::NONE;
}

uint64_t FlushPolicy::recurrence(uint64_t limit) {
  // The slot by the window's high bits (the low bits of a polynomial hash mix least).
  Seen& slot = seen_at_[(window_ >> 40) & (kSeenSlots - 1)];
  uint64_t period = 0;
  if (slot.window == window_ && slot.position != 0 && position_ - slot.position <= limit)
    period = position_ - slot.position;
  slot = {window_, position_};
  return period;
}

void FlushPolicy::set_anchor() {
  has_anchor_ = true;
  cut_at_anchor_ = false;
  lengthened_ = false;
  anchor_ = window_;
  anchor_position_ = position_;
  period_ = recurrence_; // 0 until it recurs, unless it already did within the limit
}

FlushPolicy::Cut FlushPolicy::cut(Cut kind) {
  switch (kind) {
  case Cut::FIRST:
    ++stats_.first;
    canon_period_ = 0;
    if (align_) set_anchor();
    after_forced_ = false;
    stale_ = 0;
    break;
  case Cut::ALIGNED:
    ++stats_.aligned;
    after_forced_ = false;
    stale_ = 0;
    cut_at_anchor_ = true;
    break;
  case Cut::ENDED:
    ++stats_.ended;
    has_anchor_ = false;
    lengthened_ = false;
    cut_at_anchor_ = false;
    after_forced_ = false;
    stale_ = 0;
    break;
  case Cut::FORCED:
    ++stats_.forced;
    if (lengthened_) {
      // Rule 0's anchor did not come back within the limit: the shorter loop's phase again.
      anchor_ = shorter_anchor_;
      period_ = shorter_period_;
      anchor_position_ = position_;
      lengthened_ = false;
      cut_at_anchor_ = false;
      lengthen_pause_ = kLengthenPause + 1; // (this cut counts one)
      stale_ = 0;
      after_forced_ = false;
    } else if (period_ > 0 && position_ - anchor_position_ > period_) {
      // The anchor recurred every period_ instructions and has stopped: that loop is over.
      ++stats_.reanchored;
      set_anchor();
      lengthen_pause_ = 0;
      stale_ = 0;
      after_forced_ = false;
    } else if (seen_) {
      stale_ = 0;
      after_forced_ = true;
    } else if (++stale_ >= kStaleForced) {
      ++stats_.reanchored;
      set_anchor();
      stale_ = 0;
      after_forced_ = false;
    } else {
      after_forced_ = true;
    }
    break;
  case Cut::NONE:
    break;
  }
  seen_ = false;
  last_pending_ = 0;
  if (lengthen_pause_ > 0) --lengthen_pause_;
  return kind;
}

} // namespace hassium
