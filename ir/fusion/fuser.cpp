// Fuser: option checking, the cache lookup, and the algorithm run.
#include "ir/fusion/fuser.h"

#include "core/error.h"
#include "ir/fusion/algorithms.h"
#include "ir/fusion/legality.h"
#include "ir/fusion/merge_cache.h"
#include "ir/fusion/program_key.h"
#include "ir/fusion/split_blocks.h"

namespace hassium {

FuserOptions FuserOptions::from_config(const Config& config) {
  FuserOptions o;
  o.algorithm = config.choice("fuser", "algorithm", algorithm_registry());
  o.cost_model = config.choice("fuser", "cost_model", cost_model_registry());
  o.optimal_budget = config.get_int("fuser", "optimal_budget");
  if (o.optimal_budget < 1)
    throw UserError("[fuser] optimal_budget must be at least 1, not " +
                    std::to_string(o.optimal_budget) + " (" +
                    config.value("fuser", "optimal_budget").source.str() + ")");
  for (auto [key, field] : {std::pair{"search_min_bytes", &o.search_min_bytes},
                            std::pair{"split_block_size", &o.split_block_size}}) {
    *field = config.get_int("fuser", key);
    if (*field < 0)
      throw UserError("[fuser] " + std::string(key) + " must be at least 0, not " +
                      std::to_string(*field) + " (" + config.value("fuser", key).source.str() +
                      ")");
  }
  return o;
}

bool small_program(const Program& program, int64_t min_bytes) {
  if (min_bytes <= 0) return false;
  double bytes = 0;
  size_t n = 0;
  for (const Instruction& ins : program.instrs) {
    if (ins.is_system()) continue;
    ++n;
    bytes += ins.operand_bytes();
  }
  return bytes < double(min_bytes) * double(n);
}

Partition fuse(const Program& program, const FuserOptions& options, MergeCache* cache,
               FuseInfo* info, const ProgramKey* key) {
  algorithm_registry().find(options.algorithm); // fail before anything else
  cost_model_registry().find(options.cost_model);
  // The options in effect, which the cache key records: too little data for a search to pay
  // off: linear; too little for a long block's compile to pay off: long blocks cut.
  thread_local FuserOptions o;
  bool small;
  options_in_effect(program, options, o, small);
  const Algorithm* algorithm = &algorithm_registry().find(o.algorithm).value;
  if (info) {
    *info = FuseInfo{};
    info->small = small;
  }
  thread_local ProgramKey own;
  std::optional<Partition> hit;
  FlushLayout stored{};
  if (cache) {
    if (!key) {
      own.compute(program, options);
      key = &own;
    }
    hit = cache->find(key->text, program.size(), &stored);
    // The same key and layout: the same program up to base names, blocks and cost as stored.
    if (hit && stored == key->layout && key->layout != FlushLayout{}) {
      if (info) info->exact = true;
      return std::move(*hit);
    }
  }
  std::optional<FusionContext> context;
  auto ctx = [&]() -> FusionContext& {
    if (!context) context.emplace(program, o.cost_model, o.optimal_budget);
    return *context;
  };
  if (hit) {
    // The key leaves out extents and offsets: use the stored blocks only when they are legal
    // for this program; the cost is this program's (and no longer proven optimal).
    if (check_partition(ctx().table(), hit->blocks).empty()) {
      Partition p = ctx().finish(std::move(hit->blocks), hit->algorithm);
      cache->note_checked(key->text, p, key->layout);
      return p;
    }
    cache->note_stale();
  }
  Partition p = algorithm->run(ctx());
  const size_t before = p.blocks.size();
  auto blocks = split_long_blocks(program, std::move(p.blocks), size_t(o.split_block_size),
                                  FuserOptions::kSplitMaxBytes);
  if (blocks.size() != before) {
    p = ctx().finish(std::move(blocks), p.algorithm);
    if (info) info->split = true;
  } else {
    p.blocks = std::move(blocks);
  }
  if (cache) cache->insert(key->text, program.size(), p, key->layout);
  return p;
}

} // namespace hassium
