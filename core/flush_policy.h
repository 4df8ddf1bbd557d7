// FlushPolicy: when a frontend flushes its pending program so that loop iterations end up in
// identical flushed programs (the merge cache and the kernel cache then hit).
//
// A loop body records the same instruction sequence every iteration, but a cut after every
// `threshold` instructions falls at a different phase of the loop each time, so consecutive
// programs differ. The policy cuts at the same phase instead:
//
//   signature  per recorded instruction, a 64-bit hash of the opcode and, per operand, the
//              dtype, ndim and the class of each stride (0, 1 or other) of a view, or the
//              dtype of a constant. Not base identity, extents, offsets or constant values:
//              two iterations' instructions compare equal even when the arrays are fresh
//              temporaries or the extents shrink from one iteration to the next (Gaussian
//              elimination), so the cuts stay aligned with the iterations.
//   window     a polynomial rolling hash of the last kWindow (32) signatures, O(1) per
//              instruction, no allocation.
//   anchor     the window at the last cut: the phase the policy cuts at.
//
//   recurrence  where each recent window was last seen (a direct-mapped table of kSeenSlots
//              entries, O(1) per instruction): a window seen again d instructions later
//              recurs with period d.
//
// Rule, checked after each instruction the frontend may flush after (`pending` counted with it):
//   0. a window other than the anchor that recurs with a longer period than the anchor's, at
//      most the limit, becomes the anchor: the outermost loop whose body fits in a program sets
//      the phase (a row loop around an inner loop: every program one row, not pieces of rows
//      cut at the inner loop's phase, whose row boundaries would fall anywhere). A forced cut
//      while such an anchor holds gives the previous anchor back and pauses rule 0 for
//      kLengthenPause cuts: the stream may depend on the cuts (a store recorded or written at
//      once, as a cut left its array pending or not), and then the longer period was not a
//      loop's;
//   1. no anchor yet: cut when pending > threshold, and anchor there; in a loop (the window
//      recurs p <= threshold / 2 apart) at the body's canonical phase, the one of least window
//      hash over a period of windows (within threshold + 3p), so the loop's cuts fall at the
//      same place in it however it was entered;
//   2. window == anchor and pending > threshold (or the previous cut was forced, or the
//      anchor's next occurrence, a period away, would pass the limit): cut;
//   3. pending > limit (2 x threshold):  forced cut;
//   4. the anchor recurred every `period` instructions, was cut at (rule 2) since it was set,
//      and has not recurred for two periods (a triangular sweep's period grows a little every
//      row, and comes late by that): its loop has ended. Cut there and drop the
//      anchor (rule 1 sets the next loop's phase). So a loop's programs start at the same place
//      in it whatever phase the loop before it ended at, and a sequence of loops that repeats
//      (a time step's sweeps: ADI's four loops over columns and rows) repeats its programs; the
//      forced cuts did not (a loop's phase then hung on where the previous loops' cuts fell).
//      At most one such cut per two programs cut by rules 1 and 2.
// In steady state a loop of period p <= threshold is cut every ceil((threshold+1)/p)
// iterations at the anchor's phase; p <= limit gives one iteration per flush. A longer body is
// cut into the same pieces every iteration (forced cuts, then the anchor right after). When
// the anchor, having recurred every P instructions, has not for more than P at a forced cut
// (the loop ended), or was not seen in kStaleForced (2) forced programs in a row (it was set in
// code that never repeats), the window at the forced cut becomes the anchor. A stream that
// never repeats is flushed every limit + 1 instructions.
//
// Instructions the frontend records where it must not flush (FREE from a destructor) join the
// window through note(). With `align` off the policy is the plain threshold rule.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "core/instruction.h"

namespace hassium {

class FlushPolicy {
public:
  static constexpr size_t kWindow = 32;      // signatures in the phase window (a power of two)
  static constexpr int64_t kLimitFactor = 2; // limit = kLimitFactor x threshold
  static constexpr int kStaleForced = 2;     // forced programs without the anchor before re-anchor
  static constexpr size_t kSeenSlots = 4096; // windows remembered for their period (power of two)
  static constexpr int kLengthenPause = 8;   // cuts without rule 0 after a forced cut undid it

  enum class Cut { NONE, FIRST, ALIGNED, FORCED, ENDED };
  struct Stats {
    int64_t first = 0;   // cuts by rule 1 (and the plain threshold rule when align is off)
    int64_t aligned = 0; // cuts at the anchor
    int64_t forced = 0;  // cuts at the limit
    int64_t ended = 0;   // cuts where the anchor's loop ended (rule 4)
    int64_t reanchored = 0;
    int64_t lengthened = 0; // anchors replaced by a window of a longer period (rule 0)
  };

  // The instruction's signature (see above). Cheap: no allocation.
  static uint64_t signature(const Instruction& ins);

  // An instruction recorded where the frontend must not flush: it joins the window only.
  void note(uint64_t sig) { push(sig); }
  // An instruction the frontend may flush after; `pending` counts the pending program with it.
  // Returns the kind of cut, NONE = do not flush now. The frontend flushes on any other answer.
  Cut decide(uint64_t sig, int64_t pending, int64_t threshold);
  // The frontend flushed for another reason (a sync, an explicit flush): a new program starts.
  void flushed_elsewhere();

  void set_align(bool on) { align_ = on; }
  bool align() const { return align_; }
  const Stats& stats() const { return stats_; }

private:
  void push(uint64_t sig);
  void set_anchor();
  // The current window's period (0: not seen within the limit), remembering where it was seen.
  uint64_t recurrence(uint64_t limit);
  Cut cut(Cut kind);
  // Rule 1 (no anchor).
  Cut first_cut(int64_t pending, int64_t threshold);

  static constexpr uint64_t kBase = 0x100000001b3ULL; // odd multiplier of the rolling hash
  std::array<uint64_t, kWindow> ring_{};
  size_t pos_ = 0;      // ring_[pos_] is the oldest signature in the window
  uint64_t window_ = 0; // sum of ring signatures times kBase^(age), oldest highest
  bool has_anchor_ = false;
  uint64_t anchor_ = 0;
  uint64_t position_ = 0;        // signatures pushed so far
  uint64_t anchor_position_ = 0; // where the anchor was set or last recurred
  uint64_t period_ = 0;          // between its last two occurrences; 0 = not recurred yet
  bool cut_at_anchor_ = false;   // a rule 2 cut since the anchor was set (rule 4 applies)
  // Rule 1's search for a loop's canonical phase: the period it runs over (0: none), the
  // windows seen over it and the least of them.
  uint64_t canon_period_ = 0, canon_seen_ = 0, canon_least_ = 0;
  // Rule 0's: the anchor and period it replaced (restored at a forced cut), whether it holds.
  uint64_t shorter_anchor_ = 0, shorter_period_ = 0;
  bool lengthened_ = false;
  int lengthen_pause_ = 0;    // cuts left before rule 0 applies again (after a forced cut undid it)
  bool seen_ = false;         // the anchor recurred in the current program
  bool after_forced_ = false; // the current program started at a forced cut
  int stale_ = 0;             // forced programs in a row without the anchor
  int64_t last_pending_ = 0;
  struct Seen {
    uint64_t window = 0;
    uint64_t position = 0; // 0 = empty
  };
  std::array<Seen, kSeenSlots> seen_at_{};
  uint64_t recurrence_ = 0; // the current window's period, as recurrence() found it
  bool align_ = true;
  Stats stats_;
};

} // namespace hassium
