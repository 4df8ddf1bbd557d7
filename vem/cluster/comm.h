// Comm: the MPI calls of the cluster VEM (the world communicator) and the counters they feed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hassium::cluster {

// What this rank sent and received, and how long it waited on the network.
struct CommCounters {
  int64_t bytes_sent = 0, bytes_received = 0;       // data: halos, fallbacks, scatter, SYNC
  int64_t messages_sent = 0, messages_received = 0; // data messages (one per rank pair and phase)
  int64_t program_bytes = 0, programs = 0;          // flushed programs broadcast by rank 0
  int64_t collectives = 0;                          // error checks and the like (no payload)
  double wait_seconds = 0;                          // inside MPI waits and collectives
  // Phases that receive: output elements computed before the wait (overlapped with the
  // messages) and after it, and the exchanges whose messages had all arrived when the work
  // before the wait ended; and the output elements of every phase's local program.
  int64_t overlap_elements = 0, boundary_elements = 0, ready_exchanges = 0, local_elements = 0;
};

// One message of an exchange: `bytes` at `data` to or from `peer`.
struct Message {
  int peer;
  void* data;
  size_t bytes;
};

// The world communicator. Launched by mpirun (Open MPI, PMIx or PMI variables set), the first
// use initializes MPI (MPI_THREAD_SERIALIZED); otherwise it is one rank and MPI is never called.
class Comm {
public:
  static Comm& world();
  // Started by an MPI launcher (its variables set); calls nothing of MPI.
  static bool launched();
  int rank() const { return rank_; }
  int size() const { return size_; }
  // The machines the ranks run on (ranks sharing memory: MPI_COMM_TYPE_SHARED), counted once
  // at MPI initialization by a collective, so every rank knows the same number.
  int nodes() const { return nodes_; }
  bool mpi() const { return mpi_; }
  // "Open MPI v4.1.4" (the library's version string, first line), or "no MPI launcher".
  std::string library() const;

  // Rank 0's `bytes` reach every rank (its size, then the bytes).
  void broadcast(std::vector<char>& bytes);
  // An exchange in steps (one in flight at a time): post() posts every receive and send at
  // once (MPI_Irecv/MPI_Isend, big messages in pieces), then calls MPI_Testall once (Open MPI
  // moves messages inside its calls); test() says whether all have completed (MPI_Testall);
  // wait() waits for the rest. The buffers stay the caller's until wait() returns.
  void post(const std::vector<Message>& sends, const std::vector<Message>& recvs);
  bool test();
  void wait();
  // MPI_Gatherv into rank 0's `buf` (rank r's part at displs[r] elements, counts[r] elements
  // of `elem` bytes; rank r sends from its own `buf` at displs[r]); scatter: the reverse.
  void gather(void* buf, size_t elem, const std::vector<int64_t>& counts,
              const std::vector<int64_t>& displs);
  void scatter(void* buf, size_t elem, const std::vector<int64_t>& counts,
               const std::vector<int64_t>& displs);
  // The smallest `v` over the ranks (MPI_Allreduce).
  int min(int v);
  // A string from `from` to rank 0 (for errors).
  void send_text(const std::string& text, int to);
  std::string receive_text(int from);
  // Every rank's counters at rank 0 (one entry per rank; only rank 0's vector is filled).
  std::vector<CommCounters> gather_counters();
  // MPI_Finalize (once; nothing without MPI).
  void finalize();
  bool finalized() const { return finalized_; }

  CommCounters counters;

private:
  Comm();
  ~Comm();
  struct Pending; // the requests in flight
  std::unique_ptr<Pending> pending_;
  bool mpi_ = false, finalized_ = false;
  int rank_ = 0, size_ = 1, nodes_ = 1;
};

} // namespace hassium::cluster
