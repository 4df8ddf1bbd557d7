// FlushPlanCache: lookup by key hash and full key, legality of a kept plan for a moved or
// reshaped program, least-recently-used eviction.
#include "vem/node/flush_plan_cache.h"

#include <algorithm>
#include <iterator>

#include "ir/fusion/merge_cache.h"

namespace hassium {

FlushPlanCache::List::iterator FlushPlanCache::lookup(const ProgramKey& key) {
  auto [lo, hi] = index_.equal_range(key.hash);
  for (auto it = lo; it != hi; ++it)
    if (it->second->key == key.text) return it->second;
  return entries_.end();
}

FlushPlanCache::Found FlushPlanCache::find(const Program& program, const ProgramKey& key) {
  auto it = lookup(key);
  if (it == entries_.end() || key.layout == FlushLayout{}) return {};
  Fit fit;
  bool checked = false;
  if (it->layout == key.layout)
    fit = Fit::EXACT;
  else if (!partition_holds(program, key, it->layout, it->plan->partition, &checked))
    return {};
  else if (MergeCache::same_geometry(it->layout, key.layout))
    fit = Fit::SHIFTED; // the entry keeps its layout: a later program moved alike needs no check
  else
    fit = Fit::RESHAPED;
  if (fit == Fit::RESHAPED) it->layout = key.layout;
  entries_.splice(entries_.begin(), entries_, it);
  return {it->plan.get(), fit, checked};
}

namespace {
size_t instructions_of(const FlushPlan& plan) {
  size_t n = 0;
  for (const auto& block : plan.partition.blocks) n += block.size();
  return n;
}
} // namespace

FlushPlan& FlushPlanCache::insert(const ProgramKey& key, std::unique_ptr<FlushPlan> plan) {
  const size_t instructions = instructions_of(*plan);
  auto it = lookup(key);
  if (it != entries_.end()) {
    it->layout = key.layout;
    it->plan = std::move(plan);
    instructions_ += instructions - it->instructions;
    it->instructions = instructions;
    entries_.splice(entries_.begin(), entries_, it);
  } else {
    entries_.push_front(Entry{key.text, key.hash, key.layout, std::move(plan), instructions});
    index_.emplace(key.hash, entries_.begin());
    instructions_ += instructions;
  }
  evict_past_capacity();
  return *entries_.front().plan;
}

void FlushPlanCache::evict_past_capacity() {
  while (entries_.size() > 1 &&
         (entries_.size() > capacity_ || instructions_ > instruction_capacity_)) {
    auto last = std::prev(entries_.end());
    auto [lo, hi] = index_.equal_range(last->hash);
    for (auto i = lo; i != hi; ++i)
      if (i->second == last) {
        index_.erase(i);
        break;
      }
    instructions_ -= last->instructions;
    entries_.erase(last);
  }
}

void FlushPlanCache::clear() {
  entries_.clear();
  index_.clear();
  instructions_ = 0;
}

} // namespace hassium
