// Partition algorithm `singleton`: one block per instruction, in program order.
#include "ir/fusion/algorithms.h"

namespace hassium {

Partition singleton_partition(FusionContext& ctx) {
  std::vector<std::vector<size_t>> blocks(ctx.table().size());
  for (size_t i = 0; i < blocks.size(); ++i) blocks[i] = {i};
  return ctx.finish(std::move(blocks), "singleton");
}

} // namespace hassium
