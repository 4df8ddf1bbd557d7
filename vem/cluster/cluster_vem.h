// ClusterVem: the VEM over MPI ranks; rank 0 broadcasts each flush, every rank runs its part.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/backend.h"
#include "core/registry.h"
#include "vem/cluster/comm.h"
#include "vem/cluster/plan.h"
#include "vem/cluster/wire.h"

namespace hassium::cluster {

// What execute() does with a program, on rank 0 (the frontend's process):
//  1. gives every base it has not seen an id and a distribution (block_dist along the rows its
//     views show) and notes the ids of bases the frontend let go since;
//  2. broadcasts the program with those (wire.h), and the bases whose values only rank 0 has
//     (the frontend wrote them: NumPy input, a store into a synced array) go out with
//     MPI_Scatterv;
// then on every rank (the others in serve()):
//  3. plans the flush (plan.h: the same phases on every rank) and runs each phase: its
//     exchanges (one message per rank pair, all posted together), while they travel the rows of
//     the rank's local program that need none of them, then the wait and the other rows (both
//     through the node VEM: fusion, contraction, the engine), a fallback's write-back, the SYNC
//     gathers to rank 0 (MPI_Gatherv);
//  4. after each phase, every rank learns whether one failed; the first failing rank's error
//     goes to rank 0, which throws it as the same kind of UserError; every rank drops the rest of
//     the flush (its FREEs still honored).
// [cluster] overlap and overlap_min_elements: `mode` auto splits phases (overlap) where the
// ranks span more than one node (Comm::nodes(), the same on every rank), on always, off never.
struct OverlapOptions {
  std::string mode = "auto";
  int64_t min_elements = 100000;
};

class ClusterVem : public Backend {
public:
  // `node` runs each rank's local programs.
  ClusterVem(std::unique_ptr<Backend> node, bool profile, const OverlapOptions& overlap = {});
  ~ClusterVem() override;
  std::string_view name() const override { return "cluster"; }
  void execute(const Program& program) override;
  // The node VEM's counters, and the cluster's summed over the ranks (rank 0 asks the others).
  void add_counters(ProfileCounters& c) const override;
  void wait_background_work() override { node_->wait_background_work(); }
  void finish_queued_work() override { node_->finish_queued_work(); }
  // Rank 0's frontend fills such a base; the directory scatters it at its first use.
  HostAllocator host_allocator() const override { return node_->host_allocator(); }
  // Ranks > 0: runs rank 0's flushes until it shuts down; then finalizes MPI and ends the process.
  [[noreturn]] void serve();

private:
  void register_bases(const Program& program, WireWriter& w, std::vector<Base*>& scatter);
  void run(const Program& program, const std::vector<Base*>& scatter);
  // One phase's messages: post() packs and posts them, finish() waits and unpacks what came.
  struct Exchange {
    std::vector<std::vector<char>> send_bufs, recv_bufs;
    std::vector<size_t> recv_from; // the rank of each receive buffer
  };
  Exchange post(const std::vector<std::vector<Piece>>& in,
                const std::vector<std::vector<Piece>>& out);
  void finish(Exchange& x, const std::vector<std::vector<Piece>>& in);
  void exchange(const std::vector<std::vector<Piece>>& in,
                const std::vector<std::vector<Piece>>& out);
  void gather(const Sync& sync);
  void scatter(Base& base);
  const BaseEntry& entry(const Base& b) const { return dir_.at(&b); }

  std::unique_ptr<Backend> node_;
  Comm& comm_;
  Directory dir_;
  std::unordered_map<uint64_t, Base*> by_id_; // ranks > 0
  SplitPolicy split_;                         // from OverlapOptions, decided once
  uint64_t next_id_ = 1;
  int64_t fallbacks_ = 0;
};

// The `cluster` entry of vem_registry(): MPI's state and the rank count.
ComponentProbe probe_cluster();
// Before the stack is built: ranks > 0 keep their caches in a directory of their own
// (`<dir>/rank<r>`), so many ranks on one file system never write one file.
std::string rank_cache_dir(const std::string& dir);
// Rank 0 at exit: tells the other ranks to stop, prints the per-rank counters when profiling,
// finalizes MPI. Registered with atexit by the first ClusterVem.
void shutdown_cluster();

} // namespace hassium::cluster
