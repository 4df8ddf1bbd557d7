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
  o.search_min_bytes = config.get_int("fuser", "search_min_bytes");
  if (o.search_min_bytes < 0)
    throw UserError("[fuser] search_min_bytes must be at least 0, not " +
                    std::to_string(o.search_min_bytes) + " (" +
                    config.value("fuser", "search_min_bytes").source.str() + ")");
  return o;
}

bool small_program(const Program& program, int64_t min_bytes) {
  if (min_bytes <= 0) return false;
  double bytes = 0; // (double: broadcast views of huge shapes must not overflow)
  size_t n = 0;
  for (const Instruction& ins : program.instrs) {
    if (ins.op == Opcode::FREE || ins.op == Opcode::SYNC) continue;
    ++n;
    for (size_t k = 0; k < ins.operands.size(); ++k)
      if (ins.is_view(k))
        bytes += double(ins.view(k).size()) * double(dtype_size(ins.view(k).dtype()));
  }
  return bytes < double(min_bytes) * double(n);
}

Partition fuse(const Program& program, const FuserOptions& options, MergeCache* cache,
               FuseInfo* info) {
  const AlgorithmEntry* algorithm = &find_algorithm(options.algorithm);
  find_cost_model(options.cost_model);
  // Too little data for a search to pay off: linear, under its own cache key.
  thread_local FuserOptions small_options;
  const bool small = algorithm->searches && small_program(program, options.search_min_bytes);
  if (small) {
    small_options = options;
    small_options.algorithm = "linear";
    algorithm = &find_algorithm("linear");
  }
  const FuserOptions& o = small ? small_options : options;
  thread_local std::string key;
  std::optional<Partition> hit;
  MergeCache::Layout layout{}, stored{};
  if (info) {
    *info = FuseInfo{};
    info->small = small;
  }
  if (cache) {
    std::shared_ptr<PartitionAttachment> attachment;
    MergeCache::write_key(program, o, key, &layout, info ? &info->bases : nullptr);
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
  FusionContext ctx(program, o.cost_model, o.optimal_budget);
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
  Partition p = algorithm->run(ctx);
  if (cache) cache->insert(key, program.size(), p, layout);
  return p;
}

} // namespace hassium
