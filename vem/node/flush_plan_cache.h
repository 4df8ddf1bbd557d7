// FlushPlanCache: the node VEM's flush plans by program key, so the repeated flushes of a loop
// run the plan (and the engine's kernels) of the first one.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>

#include "ir/fusion/program_key.h"
#include "vem/node/flush_plan.h"

namespace hassium {

// A plan holds for a later program of its key when its partition is legal there
// (partition_holds): the same layout (an exact repeat), the same geometry with views moved
// (shifted: the engine binds the new offsets at launch), or other extents or strides (reshaped:
// what the engine derived from the geometry is made anew; the plan takes the new layout).
// Bounded by count and by size: past `capacity` plans, or past `instruction_capacity`
// instructions in all kept plans' programs, the least recently used go (a plan can be large: a
// whole flush's blocks and kernels' plans, about 50 bytes per instruction), the newest always
// stays. The size bound, not the count, is what a loop meets whose flushes all differ (an
// inner loop of a varying trip count: Gram-Schmidt's columns, one program per outer
// iteration): its hundreds of plans are kept while they are small. Not thread-safe (the VEM
// runs one flush at a time).
class FlushPlanCache {
public:
  enum class Fit { NONE, EXACT, SHIFTED, RESHAPED };
  struct Found {
    FlushPlan* plan = nullptr;
    Fit fit = Fit::NONE;
    bool checked = false; // its partition was checked against the program's overlaps
  };

  explicit FlushPlanCache(size_t capacity = 256, size_t instruction_capacity = size_t(1) << 19)
      : capacity_(capacity), instruction_capacity_(instruction_capacity) {}

  // The plan kept for `program` (of `key`) if it holds for it; RESHAPED has updated its layout.
  Found find(const Program& program, const ProgramKey& key);
  // Keeps `plan` for `key` (replacing a plan kept for the key), as the most recently used.
  FlushPlan& insert(const ProgramKey& key, std::unique_ptr<FlushPlan> plan);
  size_t size() const { return entries_.size(); }
  size_t instructions() const { return instructions_; } // in the kept plans' partitions
  void clear();

private:
  struct Entry {
    std::string key;
    uint64_t hash = 0;
    FlushLayout layout{}; // of the program the plan was made or last reshaped for
    std::unique_ptr<FlushPlan> plan;
    size_t instructions = 0; // in the plan's partition
  };
  using List = std::list<Entry>; // most recently used first
  List::iterator lookup(const ProgramKey& key);
  void evict_past_capacity();

  size_t capacity_;
  size_t instruction_capacity_;
  size_t instructions_ = 0;
  List entries_;
  std::unordered_multimap<uint64_t, List::iterator> index_; // by ProgramKey::hash
};

} // namespace hassium
