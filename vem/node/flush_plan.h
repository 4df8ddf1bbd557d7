// FlushPlan: what the node VEM derives from a flushed program's structure, in base ids, so that
// a later flush of the same program up to base names and constants runs without deriving it.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/program.h"
#include "ir/fusion/partition.h"
#include "ve/engine.h"

namespace hassium {

// Bases are named by id: their position in `bases`, the program's bases in the key's order
// (first appearance among the operands, ProgramKey::bases). Two programs with one key and one
// layout get the same plan, so a plan kept by key (vem/node/flush_plan_cache.h) serves every
// exact repeat of its program (a loop's flushes).
struct FlushPlan {
  struct Block {
    std::vector<size_t> compute;      // its compute instructions, program order (the kernel)
    std::vector<uint32_t> contracted; // bases created and FREEd in it (vem/node/contraction.h)
    // Bases its compute instructions access, except the contracted ones, in first-access
    // order, each with whether it needs zeros when it has no data (read before any write).
    std::vector<std::pair<uint32_t, bool>> access;
    std::vector<uint32_t> written; // bases its compute instructions write
    struct System {
      uint32_t base;
      Opcode op;
      uint32_t instr; // the SYNC's or FREE's index in the program (a SYNC's view: what it reads)
    };
    std::vector<System> sync;            // its SYNCs and FREEs, program order
    std::vector<uint32_t> release_after; // FREEd bases whose last access is here
  };

  Partition partition;                 // the fuser's, after defer_early_writes
  std::vector<Block> blocks;           // one per partition block, in its order
  std::vector<uint32_t> release_first; // bases FREEd and never accessed: let go first
  // The engine's state for the blocks (Engine::make_plan): their kernels, once prepared.
  std::unique_ptr<EnginePlan> engine;
};

// The plan of `program` under `partition` (moved in, after any repair such as
// defer_early_writes); `bases` as above. Contraction depends on which bases have data now.
std::unique_ptr<FlushPlan> make_flush_plan(const Program& program, Partition partition,
                                           const std::vector<Base*>& bases);

// The program's bases in the key's order (ProgramKey::bases), without computing the key.
void bases_in_key_order(const Program& program, std::vector<Base*>& bases);

} // namespace hassium
