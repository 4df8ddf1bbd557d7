// Graphviz output of a WSP graph with a partition drawn as clusters, for people to look at.
#pragma once

#include <ostream>

#include "ir/fusion/partition.h"
#include "ir/fusion/wsp_graph.h"

namespace hassium {

// One node per instruction (labelled "N: INSTRUCTION", N 1-based), one cluster per block of
// `partition` (in its order, labelled with the block's number and cost), dependency edges
// solid, weight edges dotted blue with their savings, fuse-preventing edges (when the graph
// has them) dashed red. Render with `dot -Tsvg OUT.dot > out.svg`.
void write_wsp_dot(std::ostream& os, const WspGraph& g, const Partition& partition);

} // namespace hassium
