// Graphviz picture of one flush: instructions, dependency and weight edges, blocks as clusters.
#include "vem/node/partition_dot.h"

#include <sstream>

#include "ir/algorithms.h"
#include "ir/printer.h"

namespace hassium {

namespace {
std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}
} // namespace

std::string partition_dot(const Program& program, const Partition& partition,
                          std::string_view cost_model) {
  FusionContext ctx(program, cost_model);
  const WspGraph& g = ctx.graph();
  std::ostringstream os;
  os << "digraph flush {\n  node [shape=box, fontname=monospace];\n";
  os << "  label="
     << quoted(partition.algorithm + " / " + std::string(cost_model) + ", cost " +
               std::to_string(partition.cost))
     << ";\n";
  for (size_t b = 0; b < partition.blocks.size(); ++b) {
    os << "  subgraph cluster_" << b << " {\n    label=\"block " << b << "\";\n";
    for (size_t i : partition.blocks[b])
      os << "    i" << i
         << " [label=" << quoted(std::to_string(i) + ": " + print_instruction(program.instrs[i]))
         << "];\n";
    os << "  }\n";
  }
  for (uint32_t u = 0; u < g.size(); ++u)
    for (uint32_t v : g.successors(u)) os << "  i" << u << " -> i" << v << ";\n";
  for (const auto& w : g.weight_edges())
    os << "  i" << w.u << " -> i" << w.v << " [dir=none, style=dashed, color=gray, label=\""
       << w.weight << "\"];\n";
  os << "}\n";
  return os.str();
}

} // namespace hassium
