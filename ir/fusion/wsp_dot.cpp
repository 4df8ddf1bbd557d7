// Graphviz writer of WSP graphs: clusters per block, edges styled by kind.
#include "ir/fusion/wsp_dot.h"

#include <string>

#include "ir/text/printer.h"

namespace hassium {

namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

} // namespace

void write_wsp_dot(std::ostream& os, const WspGraph& g, const Partition& partition) {
  const AccessTable& t = g.table();
  const CostModel& m = g.model();
  os << "digraph wsp {\n";
  os << "  label="
     << quoted(partition.algorithm + " / " + partition.cost_model + ": cost " +
               std::to_string(partition.cost) + " " + std::string(m.unit()))
     << ";\n  labelloc=t;\n  node [shape=box, fontname=\"monospace\", fontsize=10];\n";
  for (size_t b = 0; b < partition.blocks.size(); ++b) {
    std::vector<uint32_t> ids(partition.blocks[b].begin(), partition.blocks[b].end());
    int64_t c = block_cost(m, summarize_block(t, ids));
    os << "  subgraph cluster_" << b << " {\n    label="
       << quoted("block " + std::to_string(b + 1) + " (" + std::to_string(c) + ")")
       << ";\n    style=rounded;\n    color=gray40;\n";
    for (size_t i : partition.blocks[b])
      os << "    i" << i << " [label="
         << quoted(std::to_string(i + 1) + ": " + print_instruction(t.program->instrs[i]))
         << "];\n";
    os << "  }\n";
  }
  const WspBoostGraph& bg = g.graph();
  for (auto [e, end] = boost::edges(bg); e != end; ++e) {
    auto u = boost::source(*e, bg), v = boost::target(*e, bg);
    os << "  i" << u << " -> i" << v;
    switch (bg[*e].kind) {
    case WspEdgeKind::DEPENDENCY:
      break;
    case WspEdgeKind::WEIGHT:
      os << " [style=dotted, color=blue, dir=none, constraint=false, label=\"" << bg[*e].weight
         << "\", fontcolor=blue, fontsize=8]";
      break;
    case WspEdgeKind::FUSE_PREVENTING:
      os << " [style=dashed, color=red, dir=none, constraint=false]";
      break;
    }
    os << ";\n";
  }
  os << "}\n";
}

} // namespace hassium
