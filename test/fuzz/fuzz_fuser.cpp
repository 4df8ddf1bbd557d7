// libFuzzer target: every partition algorithm on a decoded program, checked against the reference.
//
// Input: byte 0 picks the cost model, byte 1 the algorithm of the merge-cache checks, byte 2
// the salt of the variant program, byte 3 which of the costlier checks run (marked * below:
// each on about half the inputs, so that 10^7 executions take about two hours of one core)
// and where; the rest is the program (fuzz_program.h). Checked, for the chosen cost model:
// - every algorithm's partition is legal (test/ir/fusion/reference_fusion.h: every instruction in
//   exactly one block, every block fusible, no cycle between blocks, blocks listed in a
//   dependency order), with blocks in ascending order, and the cost it reports is the model's
//   cost of its blocks (for `bohrium` also the reference's cost);
// - every algorithm costs at most singleton; optimal, when it says it finished, at most every
//   algorithm and (*, programs of up to 6 instructions) exactly the exhaustive optimum; when
//   its budget ran out, at most the greedy partition it is seeded with (greedy over the
//   unintrusive blocks), which is then checked as the others;
// - monotonicity (Def. 6) around one algorithm's partition: merging two adjacent blocks never
//   costs more, splitting one never costs less;
// - (*) through a merge cache, a repeat is an exact hit with the same blocks, a partition run
//   again for the variant's moved views (partition_holds) is legal for it, and the variant
//   program (same structure, other offsets: mostly the same key, other overlaps) gets a
//   partition legal for it.
// A violation aborts with the program as .hsb text, so it can be replayed.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "fuzz_program.h"
#include "ir/fusion/algorithms.h"
#include "ir/fusion/fuser.h"
#include "ir/fusion/merge_cache.h"
#include "ir/fusion/program_key.h"
#include "ir/fusion/split_blocks.h"
#include "ir/text/printer.h"
#include "reference_fusion.h"

using namespace hassium;

namespace {

using BlockList = std::vector<std::vector<size_t>>;

// Programs up to this size are also compared with the exhaustive optimum.
constexpr size_t kExhaustiveMax = 6;
constexpr int64_t kOptimalBudget = 20000;

std::string blocks_text(const BlockList& blocks) {
  std::string s;
  for (const auto& b : blocks) {
    s += "[";
    for (size_t k = 0; k < b.size(); ++k) s += (k ? " " : "") + std::to_string(b[k] + 1);
    s += "]";
  }
  return s;
}

struct Violation {
  std::string what;
  const Program* program = nullptr; // the program it concerns (else the main one)
};

class Checker {
public:
  // `checks`: bit 6 the exhaustive search, bit 7 the merge cache (with the variant), bits 0-5
  // where the monotonicity checks look.
  Checker(const Program& p, const Program& variant, std::string model, std::string algorithm,
          unsigned checks)
      : p_(p), variant_(variant), model_(std::move(model)), algorithm_(std::move(algorithm)),
        checks_(checks) {}

  void run() {
    test::Reference ref(p_);
    FusionContext ctx(p_, model_, kOptimalBudget);
    std::vector<Partition> parts;
    for (const auto& entry : algorithm_registry().entries()) {
      parts.push_back(entry.value.run(ctx));
      check_partition(ref, ctx, parts.back(), entry.name, p_);
    }
    const Partition &single = parts[0], &opt = parts.back();
    for (const Partition& part : parts)
      if (part.cost > single.cost)
        fail(part.algorithm + " costs " + std::to_string(part.cost) + " > singleton's " +
             std::to_string(single.cost));
    if (!opt.proven_optimal) {
      Partition seed = greedy_partition(ctx, unintrusive_blocks(ctx));
      check_partition(ref, ctx, seed, "greedy over unintrusive", p_);
      if (opt.cost > seed.cost)
        fail("optimal costs " + std::to_string(opt.cost) + " > its greedy seed's " +
             std::to_string(seed.cost));
    } else {
      for (const Partition& part : parts)
        if (part.cost < opt.cost)
          fail(part.algorithm + " costs " + std::to_string(part.cost) + " < proven optimal " +
               std::to_string(opt.cost));
      if ((checks_ & 0x40) && p_.size() <= kExhaustiveMax) {
        int64_t best = ref.exhaustive_optimum(
            [&](const BlockList& b) { return partition_cost(ctx.model(), b); });
        if (best != opt.cost)
          fail("proven optimal costs " + std::to_string(opt.cost) + ", exhaustive search " +
               std::to_string(best));
      }
    }
    check_monotone(ctx.model(), parts[checks_ % parts.size()], checks_ / 8);
    // Cutting a partition's blocks into pieces (split_blocks.h) keeps it legal: pieces of at
    // most 1..4 compute instructions (from the input), at any data size.
    const Partition& cut = parts[(checks_ / 4) % parts.size()];
    const size_t max_piece = 1 + checks_ % 4;
    std::string err = ref.check(split_long_blocks(p_, cut.blocks, max_piece, 1e300));
    if (!err.empty())
      fail(cut.algorithm + " " + blocks_text(cut.blocks) + " cut into pieces of " +
           std::to_string(max_piece) + ": " + err);
    if (checks_ & 0x80) check_fuse();
  }

private:
  [[noreturn]] void fail(const std::string& what, const Program* program = nullptr) {
    throw Violation{"cost model " + model_ + ": " + what, program};
  }

  // `name` says which partition it is in a message (only built on a violation).
  template <class Name>
  void check_partition(const test::Reference& ref, const FusionContext& ctx, const Partition& part,
                       const Name& name, const Program& p) {
    auto fail_here = [&](const std::string& what) {
      fail(std::string(name) + " " + blocks_text(part.blocks) + ": " + what,
           &p == &p_ ? nullptr : &p);
    };
    std::string err = ref.check(part.blocks);
    if (!err.empty()) fail_here(err);
    for (const auto& b : part.blocks)
      if (b.empty() || !std::is_sorted(b.begin(), b.end())) fail_here("an empty or unsorted block");
    int64_t cost = partition_cost(ctx.model(), part.blocks);
    if (part.cost != cost)
      fail_here("reports cost " + std::to_string(part.cost) + ", the model says " +
                std::to_string(cost));
    if (model_ == "bohrium") {
      int64_t ref_cost = ref.bohrium_cost(part.blocks);
      if (part.cost != ref_cost)
        fail_here("costs " + std::to_string(part.cost) + ", the reference says " +
                  std::to_string(ref_cost));
    }
    if (part.cost_model != model_) fail_here("names cost model " + part.cost_model);
  }

  // Def. 6 around a partition: merging two adjacent blocks never costs more, splitting one in
  // halves never less. Which blocks: `pick` (from the input).
  void check_monotone(const CostModel& m, const Partition& part, unsigned pick) {
    const BlockList& blocks = part.blocks;
    if (blocks.size() >= 2) {
      size_t b = pick % (blocks.size() - 1);
      BlockList merged = blocks;
      merged[b].insert(merged[b].end(), merged[b + 1].begin(), merged[b + 1].end());
      std::sort(merged[b].begin(), merged[b].end());
      merged.erase(merged.begin() + long(b) + 1);
      if (int64_t c = partition_cost(m, merged); c > part.cost)
        fail(part.algorithm + " " + blocks_text(blocks) + " costs " + std::to_string(part.cost) +
             ", merging blocks " + std::to_string(b + 1) + " and " + std::to_string(b + 2) +
             " costs more: " + std::to_string(c));
    }
    for (size_t k = 0; k < blocks.size(); ++k) {
      size_t b = (pick + k) % blocks.size(); // the first block from `pick` on with 2+ members
      if (blocks[b].size() < 2) continue;
      BlockList split = blocks;
      size_t half = blocks[b].size() / 2;
      split[b].resize(half);
      split.emplace_back(blocks[b].begin() + long(half), blocks[b].end());
      if (int64_t c = partition_cost(m, split); c < part.cost)
        fail(part.algorithm + " " + blocks_text(blocks) + " costs " + std::to_string(part.cost) +
             ", splitting block " + std::to_string(b + 1) + " costs less: " + std::to_string(c));
      break;
    }
  }

  // fuse() through a cache: an exact repeat, then the variant program.
  void check_fuse() {
    FuserOptions o;
    o.algorithm = algorithm_;
    o.cost_model = model_;
    o.optimal_budget = kOptimalBudget;
    o.search_min_bytes = 0; // the chosen algorithm, whatever the program's size
    MergeCache cache;
    Partition first = fuse(p_, o, &cache);
    FuseInfo info;
    Partition again = fuse(p_, o, &cache, &info);
    if (!info.exact || again.blocks != first.blocks || again.cost != first.cost)
      fail("a repeat through the merge cache is not an exact hit with the same partition " +
           blocks_text(first.blocks) + " / " + blocks_text(again.blocks));
    test::Reference vref(variant_);
    FusionContext vctx(variant_, model_, kOptimalBudget);
    {
      // A VEM's kept plan runs the first partition again for the variant where
      // partition_holds() says it is legal there (moved or reshaped views): the reference must
      // agree.
      ProgramKey key, vkey;
      key.compute(p_, o);
      vkey.compute(variant_, o);
      if (vkey.text == key.text && partition_holds(variant_, vkey, key.layout, first)) {
        std::string err = vref.check(first.blocks);
        if (!err.empty())
          fail("a partition run again for the variant's moved views " + blocks_text(first.blocks) +
                   ": " + err,
               &variant_);
      }
    }
    for (int round = 0; round < 2; ++round) {
      Partition v = fuse(variant_, o, &cache);
      check_partition(vref, vctx, v,
                      "the merge cache's " + algorithm_ + " (variant, round " +
                          std::to_string(round + 1) + ")",
                      variant_);
    }
  }

  const Program& p_;
  const Program& variant_;
  std::string model_, algorithm_;
  unsigned checks_;
};

[[noreturn]] void report(const std::string& what, const Program& p, const Program& variant,
                         const Program* which) {
  std::fprintf(stderr, "fuzz_fuser: %s\n", what.c_str());
  std::fprintf(stderr, "--- program (.hsb)\n%s", print_program(p).c_str());
  if (which == &variant)
    std::fprintf(stderr, "--- variant program (.hsb)\n%s", print_program(variant).c_str());
  std::fflush(stderr);
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz::Choices head(data, size);
  const std::vector<std::string> models = cost_model_registry().names(),
                                 algorithms = algorithm_registry().names();
  std::string model = models[head.pick(unsigned(models.size()))];
  std::string algorithm = algorithms[head.pick(unsigned(algorithms.size()))];
  unsigned salt = 1 + head.pick(255);
  unsigned checks = head.pick(256);
  const size_t skip = std::min<size_t>(size, 4);
  Program p = fuzz::decode_program(data + skip, size - skip, 0, "");
  Program variant;
  if (checks & 0x80) variant = fuzz::decode_program(data + skip, size - skip, salt, "V");
  try {
    Checker(p, variant, model, algorithm, checks).run();
  } catch (const Violation& v) {
    report(v.what, p, variant, v.program);
  } catch (const std::exception& e) {
    report(std::string("exception: ") + e.what(), p, variant, &variant);
  }
  return 0;
}
