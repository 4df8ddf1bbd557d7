// ClusterVem: registration and broadcast of flushes, phases run with their exchanges, errors,
// the serve loop of ranks > 0, shutdown.
#include "vem/cluster/cluster_vem.h"

#include <mpi.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <unordered_set>

#include "core/error.h"
#include "core/index_error.h"
#include "core/memory_error.h"
#include "core/profile.h"
#include "vem/cluster/wire.h"

namespace hassium::cluster {

namespace {
bool g_profile = false; // [profile] enabled: the per-rank counters at exit

// A zero-filled buffer for the whole base (pages untouched until used: a rank's resident
// memory is its own piece and what it received).
void ensure_data(Base& b) {
  if (b.data || b.nelem == 0) return;
  const size_t n = size_t(b.nbytes());
  void* p = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw OutOfMemory(unable_to_allocate(b));
  b.data = p;
  b.allocation = std::shared_ptr<void>(p, [n](void* q) { munmap(q, n); });
}

// Each rank's piece of a base as MPI_Gatherv/Scatterv counts and displacements (elements).
std::pair<std::vector<int64_t>, std::vector<int64_t>> pieces(const Dist& d) {
  const size_t ranks = d.bounds.size() - 1;
  std::vector<int64_t> counts(ranks), displs(ranks);
  for (size_t r = 0; r < ranks; ++r) {
    counts[r] = d.hi(int(r)) - d.lo(int(r));
    displs[r] = d.lo(int(r));
  }
  return {counts, displs};
}

char* at(const Piece& p) {
  return static_cast<char*>(p.base->data) + p.lo * dtype_size(p.base->dtype);
}
size_t bytes(const Piece& p) {
  return size_t(p.hi - p.lo) * dtype_size(p.base->dtype);
}

// An error as text for rank 0: kind, index, bound, message.
std::string encode_error(std::exception_ptr e) {
  std::ostringstream s;
  try {
    std::rethrow_exception(e);
  } catch (const IndexOutOfBounds& x) {
    s << "index\n" << x.index << "\n" << x.bound << "\n" << x.what();
  } catch (const OutOfMemory& x) {
    s << "memory\n0\n0\n" << x.what();
  } catch (const Interrupted& x) {
    s << "interrupt\n0\n0\n" << x.what();
  } catch (const UserError& x) {
    s << "user\n0\n0\n" << x.what();
  } catch (const InternalError& x) {
    s << "internal\n0\n0\n" << x.what();
  } catch (const std::exception& x) {
    s << "other\n0\n0\n" << x.what();
  }
  return s.str();
}

[[noreturn]] void throw_error(const std::string& text, int rank) {
  std::istringstream s(text);
  std::string kind, msg;
  int64_t index = 0, bound = 0;
  s >> kind >> index >> bound;
  s.get();
  std::getline(s, msg, '\0');
  if (kind == "index") throw IndexOutOfBounds(msg, index, bound);
  if (kind == "memory") throw OutOfMemory(msg);
  if (kind == "interrupt") throw Interrupted(msg);
  if (kind == "user") throw UserError(msg);
  throw std::runtime_error(msg + " (cluster rank " + std::to_string(rank) + ")");
}
} // namespace

ClusterVem::ClusterVem(std::unique_ptr<Backend> node, bool profile, const OverlapOptions& overlap)
    : node_(std::move(node)), comm_(Comm::world()) {
  g_profile = profile;
  // On one node there is no network latency to hide: Open MPI's shared-memory transport moves a
  // large message inside the receiver's MPI calls, and a split costs a second node-VEM program
  // per phase (README.md, Overlap). Every rank counts the same nodes.
  split_.overlap = overlap.mode == "on" || (overlap.mode == "auto" && comm_.nodes() > 1);
  split_.min_elements = std::max<int64_t>(0, overlap.min_elements);
  static bool registered = false;
  if (comm_.rank() == 0 && comm_.mpi() && !registered) {
    registered = true;
    std::atexit(shutdown_cluster);
  }
}

ClusterVem::~ClusterVem() = default;

void ClusterVem::register_bases(const Program& program, WireWriter& w,
                                std::vector<Base*>& scatter) {
  std::vector<uint64_t> dropped;
  for (auto it = dir_.begin(); it != dir_.end();) {
    if (it->second.weak.expired()) {
      dropped.push_back(it->second.id);
      it = dir_.erase(it);
    } else {
      ++it;
    }
  }
  std::vector<const View*> views;
  for (const Instruction& ins : program.instrs)
    for (size_t k = 0; k < ins.operands.size(); ++k)
      if (ins.is_view(k)) views.push_back(&ins.view(k));
  std::vector<Base*> fresh;
  std::unordered_set<Base*> seen;
  // Last used first: a temporary's cuts follow those of the bases its consumers write.
  for (const View* v : std::vector<const View*>(views.rbegin(), views.rend())) {
    Base* b = v->base.get();
    if (!seen.insert(b).second) continue;
    auto it = dir_.find(b);
    if (it == dir_.end()) {
      BaseEntry e;
      e.id = next_id_++;
      e.weak = v->base;
      e.dist = aligned_dist(*b, program, views, dir_, comm_.size());
      e.host_writes = b->host_writes;
      e.rank0_current = b->data != nullptr;
      dir_[b] = e;
      fresh.push_back(b);
      if (b->data) scatter.push_back(b);
    } else if (b->data && it->second.rank0_current &&
               (b->host_writes != it->second.host_writes || b->host_exported)) {
      scatter.push_back(b);
    }
  }
  w.put(uint32_t(fresh.size()));
  for (Base* b : fresh) {
    w.put(dir_[b].id);
    w.put(uint8_t(b->dtype));
    w.put(b->nelem);
    w.put(dir_[b].dist.row);
    w.put_string(b->name);
    w.put(dir_[b].dist.block);
    for (int64_t x : dir_[b].dist.bounds) w.put(x);
  }
  w.put(uint32_t(dropped.size()));
  for (uint64_t id : dropped) w.put(id);
  w.put(uint32_t(scatter.size()));
  for (Base* b : scatter) w.put(dir_[b].id);
  w.put(uint32_t(program.instrs.size()));
  for (const Instruction& ins : program.instrs)
    w.put_instruction(ins, [&](const Base& b) { return dir_.at(&b).id; });
}

void ClusterVem::execute(const Program& program) {
  if (comm_.finalized()) return; // at exit, after shutdown_cluster: only FREEs are left
  WireWriter w;
  w.put(Command::EXECUTE);
  std::vector<Base*> scatter;
  register_bases(program, w, scatter);
  comm_.broadcast(w.bytes);
  run(program, scatter);
}

void ClusterVem::run(const Program& program, const std::vector<Base*>& scatter_list) {
  const int me = comm_.rank(), ranks = comm_.size();
  for (Base* b : scatter_list) scatter(*b);
  FlushPlan plan = plan_flush(program, dir_, me, ranks, split_);
  if (me == 0) fallbacks_ += plan.fallbacks;
  std::exception_ptr error;
  int failed = ranks;
  size_t at = 0;
  for (; at < plan.phases.size(); ++at) {
    Phase& phase = plan.phases[at];
    // The messages travel while the rows that need none of them run (vem/cluster/overlap.h).
    Exchange x = post(phase.in, phase.out);
    try {
      if (!phase.before.instrs.empty()) node_->execute(phase.before);
    } catch (const std::exception&) {
      error = std::current_exception();
    }
    if (!x.recv_bufs.empty()) {
      comm_.counters.overlap_elements += phase.before_elements;
      comm_.counters.ready_exchanges += comm_.test() ? 1 : 0;
    }
    finish(x, phase.in);
    try {
      if (!error && !phase.after.instrs.empty()) node_->execute(phase.after);
    } catch (const std::exception&) {
      error = std::current_exception();
    }
    if (!x.recv_bufs.empty()) comm_.counters.boundary_elements += phase.after_elements;
    comm_.counters.local_elements += phase.elements;
    failed = comm_.min(error ? me : ranks);
    if (failed < ranks) break;
    exchange(phase.post_in, phase.post_out);
    for (const Sync& s : phase.syncs) gather(s);
  }
  for (const BasePtr& t : plan.temporaries) dir_.erase(t.get());
  if (failed < ranks) {
    for (size_t j = at; j < plan.phases.size(); ++j) // (the failing phase's after part, too)
      for (const Program* part : {&plan.phases[j].before, &plan.phases[j].after})
        for (const Instruction& ins : part->instrs)
          if (ins.op == Opcode::FREE) ins.out().base->release_memory();
    if (me == failed && me != 0) comm_.send_text(encode_error(error), 0);
    if (me == 0) {
      if (failed == 0) std::rethrow_exception(error);
      throw_error(comm_.receive_text(failed), failed);
    }
    return;
  }
  if (me != 0 || ranks == 1) return;
  // A base the flush wrote is current on its owners only: here it is not synced, and its data
  // is stale (device_newer, as for a GPU's copy: a frontend reading it syncs first) until a
  // SYNC gathers it.
  for (const Instruction& ins : program.instrs) {
    if (ins.op == Opcode::FREE) continue;
    Base* b = ins.out().base.get();
    auto it = dir_.find(b);
    if (plan.partial_syncs.count(&ins)) continue; // the base stays stale here
    const bool sync = ins.op == Opcode::SYNC;
    b->synced = sync;
    b->device_newer = !sync;
    if (it != dir_.end()) {
      it->second.rank0_current = sync;
      it->second.host_writes = b->host_writes;
    }
  }
}

ClusterVem::Exchange ClusterVem::post(const std::vector<std::vector<Piece>>& in,
                                      const std::vector<std::vector<Piece>>& out) {
  Exchange x;
  if (comm_.size() == 1) return x;
  std::vector<Message> sends, recvs;
  for (size_t q = 0; q < out.size(); ++q) {
    if (out[q].empty()) continue;
    size_t n = 0;
    for (const Piece& p : out[q]) n += bytes(p);
    std::vector<char>& buf = x.send_bufs.emplace_back(n);
    char* dst = buf.data();
    for (const Piece& p : out[q]) {
      ensure_data(*p.base);
      std::memcpy(dst, at(p), bytes(p));
      dst += bytes(p);
    }
    sends.push_back({int(q), buf.data(), n});
  }
  for (size_t q = 0; q < in.size(); ++q) {
    if (in[q].empty()) continue;
    size_t n = 0;
    for (const Piece& p : in[q]) n += bytes(p);
    std::vector<char>& buf = x.recv_bufs.emplace_back(n);
    x.recv_from.push_back(q);
    recvs.push_back({int(q), buf.data(), n});
  }
  comm_.post(sends, recvs);
  return x;
}

void ClusterVem::finish(Exchange& x, const std::vector<std::vector<Piece>>& in) {
  if (comm_.size() == 1) return;
  comm_.wait();
  for (size_t i = 0; i < x.recv_bufs.size(); ++i) {
    const char* src = x.recv_bufs[i].data();
    for (const Piece& p : in[x.recv_from[i]]) {
      ensure_data(*p.base);
      std::memcpy(at(p), src, bytes(p));
      src += bytes(p);
      ++p.base->host_writes; // an engine with a device copy uploads again
    }
  }
}

void ClusterVem::exchange(const std::vector<std::vector<Piece>>& in,
                          const std::vector<std::vector<Piece>>& out) {
  Exchange x = post(in, out);
  finish(x, in);
}

void ClusterVem::gather(const Sync& s) {
  if (comm_.size() == 1) return;
  Base& base = *s.base;
  auto [counts, displs] = pieces(entry(base).dist);
  if (!s.whole())
    for (size_t r = 0; r < counts.size(); ++r) { // each rank's piece within [lo, hi)
      const int64_t lo = std::max(displs[r], s.lo), hi = std::min(displs[r] + counts[r], s.hi);
      displs[r] = lo;
      counts[r] = std::max<int64_t>(0, hi - lo);
    }
  ensure_data(base);
  comm_.gather(base.data, size_t(dtype_size(base.dtype)), counts, displs);
  if (comm_.rank() == 0 && s.whole()) {
    base.synced = true;
    base.device_newer = false;
  }
}

void ClusterVem::scatter(Base& base) {
  if (comm_.size() == 1) return;
  const auto [counts, displs] = pieces(entry(base).dist);
  ensure_data(base);
  comm_.scatter(base.data, size_t(dtype_size(base.dtype)), counts, displs);
  ++base.host_writes;
  if (comm_.rank() == 0) dir_.at(&base).host_writes = base.host_writes;
}

void ClusterVem::add_counters(ProfileCounters& c) const {
  node_->add_counters(c);
  std::vector<CommCounters> all{comm_.counters};
  if (comm_.size() > 1 && !comm_.finalized()) {
    WireWriter w;
    w.put(Command::COUNTERS);
    comm_.broadcast(w.bytes);
    all = comm_.gather_counters();
  }
  for (const CommCounters& k : all) {
    c.cluster_bytes_sent += k.bytes_sent;
    c.cluster_bytes_received += k.bytes_received;
    c.cluster_messages_sent += k.messages_sent;
    c.cluster_messages_received += k.messages_received;
    c.cluster_program_bytes += k.program_bytes;
    c.cluster_collectives += k.collectives;
    c.cluster_wait_seconds += k.wait_seconds;
    c.cluster_overlap_elements += k.overlap_elements;
    c.cluster_boundary_elements += k.boundary_elements;
    c.cluster_ready_exchanges += k.ready_exchanges;
    c.cluster_local_elements += k.local_elements;
  }
  c.cluster_ranks = comm_.size();
  c.cluster_fallbacks += fallbacks_;
}

void ClusterVem::serve() {
  try {
    for (;;) {
      std::vector<char> msg;
      comm_.broadcast(msg);
      WireReader r(msg);
      const Command cmd = r.get<Command>();
      if (cmd == Command::SHUTDOWN) break;
      if (cmd == Command::COUNTERS) {
        comm_.gather_counters();
        continue;
      }
      for (uint32_t n = r.get<uint32_t>(); n; --n) {
        BaseEntry e;
        e.id = r.get<uint64_t>();
        const DType t = DType(r.get<uint8_t>());
        const int64_t nelem = r.get<int64_t>(), row = r.get<int64_t>();
        e.hold = make_base(r.get_string(), t, nelem);
        e.dist.row = row;
        e.dist.block = r.get<int64_t>();
        e.dist.bounds.resize(size_t(comm_.size()) + 1);
        for (int64_t& x : e.dist.bounds) x = r.get<int64_t>();
        by_id_[e.id] = e.hold.get();
        dir_[e.hold.get()] = e;
      }
      for (uint32_t n = r.get<uint32_t>(); n; --n) {
        auto it = by_id_.find(r.get<uint64_t>());
        HS_INTERNAL_ASSERT(it != by_id_.end()) << "cluster: unknown base dropped";
        dir_.erase(it->second);
        by_id_.erase(it);
      }
      auto base_of = [&](uint64_t id) {
        auto it = by_id_.find(id);
        HS_INTERNAL_ASSERT(it != by_id_.end()) << "cluster: unknown base " << id;
        return dir_.at(it->second).hold;
      };
      std::vector<Base*> scatter;
      for (uint32_t n = r.get<uint32_t>(); n; --n)
        scatter.push_back(base_of(r.get<uint64_t>()).get());
      Program program;
      for (uint32_t n = r.get<uint32_t>(); n; --n)
        program.instrs.push_back(r.get_instruction(base_of));
      run(program, scatter);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hassium: cluster rank %d: %s\n", comm_.rank(), e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  dir_.clear();
  by_id_.clear();
  comm_.finalize();
  std::fflush(nullptr);
  _exit(0);
}

ComponentProbe probe_cluster() {
  const Comm& c = Comm::world();
  std::string where =
      c.library() + ", " + std::to_string(c.size()) + (c.size() == 1 ? " rank" : " ranks");
  if (c.size() > 1)
    where += " on " + std::to_string(c.nodes()) + (c.nodes() == 1 ? " node" : " nodes");
  return {true, where,
          c.mpi() ? "" : "under mpirun -np P each of the P ranks runs a piece of every flush"};
}

std::string rank_cache_dir(const std::string& dir) {
  const int r = Comm::world().rank();
  return r == 0 || dir.empty() ? dir : dir + "/rank" + std::to_string(r);
}

void shutdown_cluster() {
  Comm& c = Comm::world();
  if (!c.mpi() || c.finalized()) return;
  if (c.rank() == 0 && c.size() > 1) {
    if (g_profile) {
      WireWriter w;
      w.put(Command::COUNTERS);
      c.broadcast(w.bytes);
      const auto all = c.gather_counters();
      for (size_t r = 0; r < all.size(); ++r)
        std::fprintf(stderr,
                     "hassium cluster rank %zu: sent %lld bytes in %lld messages, received %lld "
                     "bytes in %lld messages, %lld programs (%lld bytes), %lld collectives, "
                     "waited %.6f s; %lld elements computed, %lld before waits, %lld after, "
                     "%lld exchanges ready before the wait\n",
                     r, (long long)all[r].bytes_sent, (long long)all[r].messages_sent,
                     (long long)all[r].bytes_received, (long long)all[r].messages_received,
                     (long long)all[r].programs, (long long)all[r].program_bytes,
                     (long long)all[r].collectives, all[r].wait_seconds,
                     (long long)all[r].local_elements, (long long)all[r].overlap_elements,
                     (long long)all[r].boundary_elements, (long long)all[r].ready_exchanges);
    }
    WireWriter w;
    w.put(Command::SHUTDOWN);
    c.broadcast(w.bytes);
  }
  c.finalize();
}

} // namespace hassium::cluster
