// ProgramKey: the key, layout and bases of a flushed program, in one pass over its operands.
#include "ir/fusion/program_key.h"

#include "core/error.h"
#include "core/thread_scratch.h"
#include "ir/fusion/access_table.h"
#include "ir/fusion/algorithms.h"
#include "ir/fusion/legality.h"
#include "ir/fusion/merge_cache.h"

namespace hassium {

void options_in_effect(const Program& program, const FuserOptions& options, FuserOptions& out,
                       bool& small) {
  out = options;
  small = algorithm_registry().find(options.algorithm).value.searches &&
          small_program(program, options.search_min_bytes);
  if (small) out.algorithm = "linear";
}

void ProgramKey::compute(const Program& program, const FuserOptions& options) {
  // (write_key applies options_in_effect's rule itself, from the bytes its pass counts.)
  MergeCache::write_key(program, options, text, &layout, &bases, &overlap_free, &overlapping,
                        &small);
  hash = MergeCache::hash_key(text);
}

bool partition_holds(const Program& program, const ProgramKey& key, const FlushLayout& planned,
                     const Partition& p, bool* checked) {
  if (checked) *checked = false;
  if (key.layout == FlushLayout{}) return false; // unknown
  if (planned == key.layout || key.overlap_free || MergeCache::moved_together(planned, key.layout))
    return true;
  thread_local std::vector<const Base*> tls_only;
  std::vector<const Base*>& only = pinned(tls_only);
  only.clear();
  for (uint32_t id : key.overlapping) only.push_back(key.bases[id]);
  HS_INTERNAL_ASSERT(!only.empty()) << "a program that is not overlap-free names no base";
  if (checked) *checked = true;
  return check_partition(build_access_table(program, only), p.blocks).empty();
}

} // namespace hassium
