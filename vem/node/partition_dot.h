// Graphviz picture of one flush: the WSP graph with the partition's blocks as clusters.
#pragma once

#include <string>
#include <string_view>

#include "core/program.h"
#include "ir/partition.h"

namespace hassium {

// A `digraph`: one box per instruction (its .hsb text), inside one cluster per block (in
// execution order, labelled with the block's position); dependency edges solid, weight edges
// (merge savings under `cost_model`) dashed and labelled. For [profile] dot_dir.
std::string partition_dot(const Program& program, const Partition& partition,
                          std::string_view cost_model);

} // namespace hassium
