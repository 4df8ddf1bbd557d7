// `hassium fuse FILE.hsb`: partition a program into fused blocks and print the blocks and cost.
#include <fstream>
#include <iostream>

#include "bridge/cli/command.h"
#include "core/config.h"
#include "core/error.h"
#include "ir/fusion/algorithms.h"
#include "ir/fusion/fuser.h"
#include "ir/fusion/wsp_dot.h"
#include "ir/text/parser.h"
#include "ir/text/verifier.h"

namespace {

// Graphs above this many instructions are drawn without fuse-preventing edges (O(n^2)).
constexpr size_t kDotFusePreventingLimit = 300;

} // namespace

HS_CLI_COMMAND(fuse) {
  static std::string file, algorithm, cost_model, dot;
  static int64_t budget = 0;
  auto* sub = app.add_subcommand(
      "fuse", "Partition a .hsb program into fused blocks (the WSP problem). Prints one line per "
              "block with its 1-based instruction numbers, in execution order, then "
              "`cost: N UNIT`. Defaults come from the [fuser] section of the configuration.");
  sub->add_option("file", file, "the .hsb file")->required();
  auto* alg =
      sub->add_option("--algorithm", algorithm,
                      "partition algorithm: " + hassium::algorithm_registry().joined_names());
  auto* model = sub->add_option("--cost-model", cost_model,
                                "cost model: " + hassium::cost_model_registry().joined_names());
  auto* bud = sub->add_option("--budget", budget, "search nodes of `optimal`");
  sub->add_option("--dot", dot, "write the WSP graph with the partition as clusters (Graphviz)");
  sub->callback([alg, model, bud] {
    hassium::FuserOptions options;
    // The configuration only matters for what the flags leave open.
    if (!*alg || !*model || !*bud) {
      auto config = hassium::Config::global();
      auto from_config = hassium::FuserOptions::from_config(*config);
      if (!*alg) algorithm = from_config.algorithm;
      if (!*model) cost_model = from_config.cost_model;
      if (!*bud) budget = from_config.optimal_budget;
    }
    options.algorithm = algorithm;
    options.cost_model = cost_model;
    if (budget < 1) throw hassium::UserError("--budget must be at least 1");
    options.optimal_budget = budget;
    options.search_min_bytes = 0; // the named algorithm, however small the program
    hassium::Program prog = hassium::parse_file(file);
    hassium::verify_program(prog);
    hassium::Partition p = hassium::fuse(prog, options);
    for (const auto& block : p.blocks) {
      for (size_t k = 0; k < block.size(); ++k) std::cout << (k ? " " : "") << block[k] + 1;
      std::cout << "\n";
    }
    std::cout << "cost: " << p.cost << " " << hassium::cost_model_unit(p.cost_model) << "\n";
    if (p.algorithm == "optimal" && !p.proven_optimal)
      std::cerr << "hassium: note: optimal ran out of its budget of " << options.optimal_budget
                << " search nodes; this is the best partition it found\n";
    if (!dot.empty()) {
      hassium::AccessTable table = hassium::build_access_table(prog);
      auto m = hassium::make_cost_model(options.cost_model, table);
      hassium::WspGraph g(table, *m,
                          {.fuse_preventing_edges = prog.size() <= kDotFusePreventingLimit});
      std::ofstream out(dot);
      if (!out) throw hassium::UserError("cannot write " + dot);
      hassium::write_wsp_dot(out, g, p);
      if (!out) throw hassium::UserError("error writing " + dot);
    }
  });
  (void)exit_code;
}
