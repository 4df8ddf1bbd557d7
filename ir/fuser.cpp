// Fuser: option checking, the cache lookup, and the algorithm run.
#include "ir/fuser.h"

#include "core/error.h"
#include "ir/algorithms.h"
#include "ir/merge_cache.h"

namespace hassium {

FuserOptions FuserOptions::from_config(const Config& config) {
  FuserOptions o;
  o.algorithm = config.choice("fuser", "algorithm", algorithm_names());
  o.cost_model = config.choice("fuser", "cost_model", cost_model_names());
  o.optimal_budget = config.get_int("fuser", "optimal_budget");
  if (o.optimal_budget < 1)
    throw UserError("[fuser] optimal_budget must be at least 1, not " +
                    std::to_string(o.optimal_budget) + " (" +
                    config.value("fuser", "optimal_budget").source.str() + ")");
  return o;
}

Partition fuse(const Program& program, const FuserOptions& options, MergeCache* cache,
               FuseInfo* info) {
  const AlgorithmEntry& algorithm = find_algorithm(options.algorithm);
  find_cost_model(options.cost_model);
  thread_local std::string key;
  std::optional<Partition> hit;
  MergeCache::Layout layout{}, stored{};
  if (info) *info = FuseInfo{};
  if (cache) {
    std::shared_ptr<PartitionAttachment> attachment;
    MergeCache::write_key(program, options, key, &layout, info ? &info->bases : nullptr);
    hit = cache->find(key, program.size(), &stored, info ? &attachment : nullptr);
    if (info) {
      info->key = key;
      info->layout = layout;
    }
    // The same key and layout: the same program up to base names, blocks and cost as stored.
    if (hit && stored == layout && layout != MergeCache::Layout{}) {
      if (info) {
        info->exact = true;
        info->attachment = std::move(attachment);
      }
      return std::move(*hit);
    }
  }
  FusionContext ctx(program, options.cost_model, options.optimal_budget);
  if (hit) {
    // The key leaves out extents and offsets: use the stored blocks only when they are legal
    // for this program; the cost is this program's (and no longer proven optimal).
    if (MergeCache::check_partition(ctx.table(), *hit).empty()) {
      Partition p = ctx.finish(std::move(hit->blocks), hit->algorithm);
      cache->note_checked(key, p, layout);
      return p;
    }
    cache->note_stale();
  }
  Partition p = algorithm.run(ctx);
  if (cache) cache->insert(key, program.size(), p, layout);
  return p;
}

} // namespace hassium
