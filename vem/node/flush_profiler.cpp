// FlushProfiler: singleton cost per flush, bytes and time per distinct kernel.
#include "vem/node/flush_profiler.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "core/dtype.h"
#include "ir/fusion/algorithms.h"
#include "ir/text/printer.h"

namespace hassium {

std::string canonical_bytecode(const Program& program, const std::vector<size_t>& instrs) {
  std::unordered_map<const Base*, BasePtr> renamed;
  std::vector<BasePtr> order;
  auto rename = [&](const BasePtr& b) -> const BasePtr& {
    auto [it, fresh] = renamed.try_emplace(b.get());
    if (fresh) {
      it->second = make_base("a" + std::to_string(order.size()), b->dtype, b->nelem);
      order.push_back(it->second);
    }
    return it->second;
  };
  std::string body;
  for (size_t i : instrs) {
    Instruction ins = program.instrs[i];
    for (auto& opnd : ins.operands)
      if (auto* v = std::get_if<View>(&opnd)) v->base = rename(v->base);
    body += print_instruction(ins) + "\n";
  }
  std::string text;
  for (const auto& b : order)
    text += ".base " + b->name + " " + std::string(dtype_name(b->dtype)) + " " +
            std::to_string(b->nelem) + "\n";
  return text + body;
}

int64_t bytes_moved(const Program& program, const std::vector<size_t>& instrs,
                    const std::vector<const Base*>& contracted) {
  std::unordered_set<const Base*> skip(contracted.begin(), contracted.end());
  // Views by (base, offset): only those can be identical, so big blocks stay O(n log n).
  std::map<std::pair<const Base*, int64_t>, std::vector<const View*>> seen;
  int64_t bytes = 0;
  for (size_t i : instrs)
    for (const auto& opnd : program.instrs[i].operands) {
      const View* v = std::get_if<View>(&opnd);
      if (!v || skip.count(v->base.get())) continue;
      auto& same_start = seen[{v->base.get(), v->offset}];
      if (std::any_of(same_start.begin(), same_start.end(),
                      [&](const View* s) { return s->identical(*v); }))
        continue;
      same_start.push_back(v);
      bytes += v->size() * int64_t(dtype_size(v->dtype()));
    }
  return bytes;
}

void FlushProfiler::on_partition(const Program& program) {
  FusionContext ctx(program, cost_model_);
  singleton_cost_ += singleton_partition(ctx).cost;
}

void FlushProfiler::on_block(const Program& program, const std::vector<size_t>& instrs,
                             const std::vector<const Base*>& contracted, double seconds) {
  int64_t bytes = bytes_moved(program, instrs, contracted);
  bytes_moved_ += bytes;
  KernelTime& k = kernels_[canonical_bytecode(program, instrs)];
  ++k.runs;
  k.seconds += seconds;
  k.bytes = bytes;
}

void FlushProfiler::add_counters(ProfileCounters& c) const {
  c.singleton_cost += singleton_cost_;
  c.bytes_moved += bytes_moved_;
  std::vector<KernelTime> all;
  all.reserve(kernels_.size());
  for (const auto& [text, k] : kernels_) {
    all.push_back(k);
    all.back().bytecode = text;
  }
  keep_slowest(all, ProfileCounters::kMaxSlowestKernels);
  ProfileCounters mine;
  mine.slowest_kernels = std::move(all);
  c += mine;
}

} // namespace hassium
