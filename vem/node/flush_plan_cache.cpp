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
  if (it->layout == key.layout)
    fit = Fit::EXACT;
  else if (!partition_holds(program, key, it->layout, it->plan->partition))
    return {};
  else if (MergeCache::same_geometry(it->layout, key.layout))
    fit = Fit::SHIFTED; // the entry keeps its layout: a later program moved alike needs no check
  else
    fit = Fit::RESHAPED;
  if (fit == Fit::RESHAPED) it->layout = key.layout;
  entries_.splice(entries_.begin(), entries_, it);
  return {it->plan.get(), fit};
}

FlushPlan& FlushPlanCache::insert(const ProgramKey& key, std::unique_ptr<FlushPlan> plan) {
  auto it = lookup(key);
  if (it != entries_.end()) {
    it->layout = key.layout;
    it->plan = std::move(plan);
    entries_.splice(entries_.begin(), entries_, it);
    return *entries_.front().plan;
  }
  entries_.push_front(Entry{key.text, key.hash, key.layout, std::move(plan)});
  index_.emplace(key.hash, entries_.begin());
  while (entries_.size() > std::max<size_t>(capacity_, 1)) {
    auto last = std::prev(entries_.end());
    auto [lo, hi] = index_.equal_range(last->hash);
    for (auto i = lo; i != hi; ++i)
      if (i->second == last) {
        index_.erase(i);
        break;
      }
    entries_.erase(last);
  }
  return *entries_.front().plan;
}

void FlushPlanCache::clear() {
  entries_.clear();
  index_.clear();
}

} // namespace hassium
