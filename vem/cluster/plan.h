// The cluster plan of one flush: phases of exchanges and each rank's local program.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/program.h"
#include "vem/cluster/distribution.h"

namespace hassium::cluster {

// What every rank knows of a base: its cluster-wide id and its distribution. Rank 0 keys the
// frontend's bases; the other ranks hold the bases they made from rank 0's descriptions.
struct BaseEntry {
  uint64_t id = 0;
  Dist dist;
  BasePtr hold;               // ranks > 0 (and temporaries): keeps the base alive
  std::weak_ptr<Base> weak;   // rank 0: the frontend's base, for noticing its death
  uint64_t host_writes = 0;   // rank 0: Base::host_writes when the cluster last had its values
  bool rank0_current = false; // rank 0: its data holds every element's current value
  int partial_syncs = 0;      // SYNCs of a part of it since a flush last wrote it (every rank)
};
using Directory = std::unordered_map<const Base*, BaseEntry>;

// The distribution of a base first seen in `program`: where its first writer is a whole-base
// contiguous output with an input of its shape on a base already in `dir` (a temporary made from
// distributed data), the cuts follow that input's rows, so each rank computes the temporary's
// rows from its own elements; otherwise block_dist along row_length(). The blocks stay
// block_dist's (reductions chunk by them, whatever the cuts).
Dist aligned_dist(const Base& base, const Program& program, const std::vector<const View*>& views,
                  const Directory& dir, int ranks);

// A range [lo, hi) of elements of a base.
struct Piece {
  uint64_t id;
  Base* base;
  int64_t lo, hi;
};

// One phase: exchange (every message of it posted at once), this rank's local program through
// the node VEM (the rows that need no remote element while the messages travel, the rest after
// the wait: vem/cluster/overlap.h), then a fallback's write-back and the SYNC gathers. in[q] /
// out[q]: the pieces this rank receives from / sends to rank q, sorted and merged (both sides
// list them alike).
// A SYNC: the elements [lo, hi) of the base gather to rank 0 (all of them, or the span of the
// view a frontend reads: an element, a row).
struct Sync {
  Base* base;
  int64_t lo, hi;
  bool whole() const { return lo == 0 && hi == base->nelem; }
};

struct Phase {
  std::vector<std::vector<Piece>> in, out, post_in, post_out;
  Program before, after; // this rank's local program: before / after the wait for `in`
  int64_t before_elements = 0, after_elements = 0; // their output elements, where `in` is not empty
  int64_t elements = 0;                            // the output elements of all its rows
  std::vector<Sync> syncs;
  bool fallback = false;
};

struct FlushPlan {
  std::vector<Phase> phases;
  std::vector<BasePtr> temporaries; // the reductions' partial results (their FREEs are in)
  int64_t fallbacks = 0;            // instructions run on rank 0 for all
  // SYNCs that gather part of their base (the base then stays stale on rank 0).
  std::unordered_set<const Instruction*> partial_syncs;
};

// Where a phase's local program is split at the wait for its messages (vem/cluster/overlap.h):
// with `overlap` false never (a rank that receives waits, then runs its program whole, as one
// node-VEM program); with it true where the rank receives and the phase has at least
// `min_elements` output elements per rank (all ranks' elements over P: every rank splits alike).
struct SplitPolicy {
  bool overlap = true;
  int64_t min_elements = 0;
};

// Plans `program` for rank `me` of `ranks`: owner computes (the rows of each output a rank
// owns), remote inputs fetched at the start of the phase (a new phase where an input was
// written earlier in the phase), reductions along axis 0 in fixed chunks (README.md), what is
// not distributed on rank 0 with its operands gathered and its output sent back. `dir` gets
// entries for the temporaries (the caller drops them after the flush). Every rank plans the
// same phases; `split` decides where a phase's local program is cut at the wait.
FlushPlan plan_flush(const Program& program, Directory& dir, int me, int ranks,
                     const SplitPolicy& split = {});

} // namespace hassium::cluster
