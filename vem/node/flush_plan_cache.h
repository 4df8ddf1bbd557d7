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
// Bounded: past `capacity` plans, the least recently used goes (a plan can be large: a whole
// flush's blocks and kernels' plans). Not thread-safe (the VEM runs one flush at a time).
class FlushPlanCache {
public:
  enum class Fit { NONE, EXACT, SHIFTED, RESHAPED };
  struct Found {
    FlushPlan* plan = nullptr;
    Fit fit = Fit::NONE;
  };

  explicit FlushPlanCache(size_t capacity = 256) : capacity_(capacity) {}

  // The plan kept for `program` (of `key`) if it holds for it; RESHAPED has updated its layout.
  Found find(const Program& program, const ProgramKey& key);
  // Keeps `plan` for `key` (replacing a plan kept for the key), as the most recently used.
  FlushPlan& insert(const ProgramKey& key, std::unique_ptr<FlushPlan> plan);
  size_t size() const { return entries_.size(); }
  void clear();

private:
  struct Entry {
    std::string key;
    uint64_t hash = 0;
    FlushLayout layout{}; // of the program the plan was made or last reshaped for
    std::unique_ptr<FlushPlan> plan;
  };
  using List = std::list<Entry>; // most recently used first
  List::iterator lookup(const ProgramKey& key);

  size_t capacity_;
  List entries_;
  std::unordered_multimap<uint64_t, List::iterator> index_; // by ProgramKey::hash
};

} // namespace hassium
