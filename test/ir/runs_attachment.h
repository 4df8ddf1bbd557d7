// RunsAttachment: a merge-cache attachment that runs a given partition, as a VEM's flush plan
// does (PartitionAttachment::runs), for tests of fuse()'s moved- and reshaped-view replays.
#pragma once

#include <utility>

#include "ir/fuser.h"

namespace hassium::test {

struct RunsAttachment : PartitionAttachment {
  Partition p;
  explicit RunsAttachment(Partition q) : p(std::move(q)) {}
  const Partition* runs() const override { return &p; }
};

} // namespace hassium::test
