// Comm: MPI initialization, the broadcast, the aggregated nonblocking exchange, Gatherv/Scatterv.
#include "vem/cluster/comm.h"

#include <dlfcn.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>

#include "core/error.h"

namespace hassium::cluster {

namespace {
// Messages bigger than this go in pieces (MPI counts are int).
constexpr size_t kPiece = size_t(1) << 30;

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  HS_USER_ERROR() << "cluster: " << what << " failed: " << std::string(text, size_t(len));
}

// Times a wait into counters.wait_seconds.
class WaitTimer {
public:
  explicit WaitTimer(CommCounters& c) : c_(c), t0_(std::chrono::steady_clock::now()) {}
  ~WaitTimer() {
    c_.wait_seconds +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }

private:
  CommCounters& c_;
  std::chrono::steady_clock::time_point t0_;
};

bool fits_int(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x >= 0 && x <= INT_MAX; });
}
} // namespace

struct Comm::Pending {
  std::vector<MPI_Request> requests;
};

Comm::~Comm() = default;

bool Comm::launched() {
  return launched_by_mpi();
}

Comm& Comm::world() {
  static Comm comm;
  return comm;
}

Comm::Comm() {
  if (!launched_by_mpi()) return;
  // The Python extension loads libmpi with RTLD_LOCAL; Open MPI's plugins need its symbols.
  dlopen("libmpi.so.40", RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread");
  }
  mpi_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (size_ == 1) return;
  // The nodes: one leader (node rank 0) per group of ranks that share memory, summed.
  MPI_Comm node;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node),
        "MPI_Comm_split_type");
  int node_rank = 0;
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_free(&node);
  const int leader = node_rank == 0 ? 1 : 0;
  check(MPI_Allreduce(&leader, &nodes_, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
}

std::string Comm::library() const {
  if (!mpi_) return "no MPI launcher";
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string s(text, size_t(len));
  return s.substr(0, s.find_first_of(",\n"));
}

void Comm::broadcast(std::vector<char>& bytes) {
  if (size_ == 1) return;
  uint64_t n = bytes.size();
  check(MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  bytes.resize(n);
  for (size_t at = 0; at < n; at += kPiece)
    check(MPI_Bcast(bytes.data() + at, int(std::min(kPiece, n - at)), MPI_BYTE, 0, MPI_COMM_WORLD),
          "MPI_Bcast");
  ++counters.programs;
  counters.program_bytes += int64_t(n);
}

void Comm::post(const std::vector<Message>& sends, const std::vector<Message>& recvs) {
  if (!pending_) pending_ = std::make_unique<Pending>();
  std::vector<MPI_Request>& requests = pending_->requests;
  HS_INTERNAL_ASSERT(requests.empty()) << "cluster: an exchange is already in flight";
  if (sends.empty() && recvs.empty()) return;
  auto put = [&](const Message& m, bool send) {
    const size_t pieces = std::max<size_t>(1, (m.bytes + kPiece - 1) / kPiece);
    for (size_t piece = 0; piece < pieces; ++piece) {
      MPI_Request r;
      char* p = static_cast<char*>(m.data) + piece * kPiece;
      const int n = int(std::min(kPiece, m.bytes - piece * kPiece));
      check(send ? MPI_Isend(p, n, MPI_BYTE, m.peer, int(piece), MPI_COMM_WORLD, &r)
                 : MPI_Irecv(p, n, MPI_BYTE, m.peer, int(piece), MPI_COMM_WORLD, &r),
            send ? "MPI_Isend" : "MPI_Irecv");
      requests.push_back(r);
    }
  };
  for (const Message& m : recvs) {
    put(m, false);
    ++counters.messages_received;
    counters.bytes_received += int64_t(m.bytes);
  }
  for (const Message& m : sends) {
    put(m, true);
    ++counters.messages_sent;
    counters.bytes_sent += int64_t(m.bytes);
  }
  test();
}

bool Comm::test() {
  if (!pending_ || pending_->requests.empty()) return true;
  std::vector<MPI_Request>& requests = pending_->requests;
  int done = 0;
  check(MPI_Testall(int(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE),
        "MPI_Testall");
  if (done) requests.clear();
  return done != 0;
}

void Comm::wait() {
  if (!pending_ || pending_->requests.empty()) return;
  std::vector<MPI_Request>& requests = pending_->requests;
  WaitTimer t(counters);
  check(MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
  requests.clear();
}

void Comm::gather(void* buf, size_t elem, const std::vector<int64_t>& counts,
                  const std::vector<int64_t>& displs) {
  if (size_ == 1) return;
  char* base = static_cast<char*>(buf);
  if (rank_ == 0) {
    for (int r = 1; r < size_; ++r)
      if (counts[r]) ++counters.messages_received, counters.bytes_received += counts[r] * elem;
  } else if (counts[rank_]) {
    ++counters.messages_sent;
    counters.bytes_sent += int64_t(counts[rank_] * elem);
  }
  WaitTimer t(counters);
  if (!fits_int(counts) || !fits_int(displs)) { // too big for int counts: point to point
    std::vector<Message> sends, recvs;
    if (rank_ == 0) {
      for (int r = 1; r < size_; ++r)
        if (counts[r]) recvs.push_back({r, base + displs[r] * elem, size_t(counts[r]) * elem});
    } else if (counts[rank_]) {
      sends.push_back({0, base + displs[rank_] * elem, size_t(counts[rank_]) * elem});
    }
    CommCounters keep = counters;
    exchange(sends, recvs);
    counters = keep; // counted above
    return;
  }
  MPI_Datatype type;
  MPI_Type_contiguous(int(elem), MPI_BYTE, &type);
  MPI_Type_commit(&type);
  std::vector<int> c(counts.begin(), counts.end()), d(displs.begin(), displs.end());
  const int rc = rank_ == 0 ? MPI_Gatherv(MPI_IN_PLACE, 0, type, base, c.data(), d.data(), type, 0,
                                          MPI_COMM_WORLD)
                            : MPI_Gatherv(base + displs[rank_] * elem, c[rank_], type, nullptr,
                                          nullptr, nullptr, type, 0, MPI_COMM_WORLD);
  MPI_Type_free(&type);
  check(rc, "MPI_Gatherv");
}

void Comm::scatter(void* buf, size_t elem, const std::vector<int64_t>& counts,
                   const std::vector<int64_t>& displs) {
  if (size_ == 1) return;
  char* base = static_cast<char*>(buf);
  if (rank_ == 0) {
    for (int r = 1; r < size_; ++r)
      if (counts[r]) ++counters.messages_sent, counters.bytes_sent += counts[r] * elem;
  } else if (counts[rank_]) {
    ++counters.messages_received;
    counters.bytes_received += int64_t(counts[rank_] * elem);
  }
  WaitTimer t(counters);
  if (!fits_int(counts) || !fits_int(displs)) {
    std::vector<Message> sends, recvs;
    if (rank_ == 0) {
      for (int r = 1; r < size_; ++r)
        if (counts[r]) sends.push_back({r, base + displs[r] * elem, size_t(counts[r]) * elem});
    } else if (counts[rank_]) {
      recvs.push_back({0, base + displs[rank_] * elem, size_t(counts[rank_]) * elem});
    }
    CommCounters keep = counters;
    exchange(sends, recvs);
    counters = keep;
    return;
  }
  MPI_Datatype type;
  MPI_Type_contiguous(int(elem), MPI_BYTE, &type);
  MPI_Type_commit(&type);
  std::vector<int> c(counts.begin(), counts.end()), d(displs.begin(), displs.end());
  const int rc =
      rank_ == 0
          ? MPI_Scatterv(base, c.data(), d.data(), type, MPI_IN_PLACE, 0, type, 0, MPI_COMM_WORLD)
          : MPI_Scatterv(nullptr, nullptr, nullptr, type, base + displs[rank_] * elem, c[rank_],
                         type, 0, MPI_COMM_WORLD);
  MPI_Type_free(&type);
  check(rc, "MPI_Scatterv");
}

int Comm::min(int v) {
  if (size_ == 1) return v;
  ++counters.collectives;
  WaitTimer t(counters);
  int out = v;
  check(MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD), "MPI_Allreduce");
  return out;
}

void Comm::send_text(const std::string& text, int to) {
  uint64_t n = text.size();
  check(MPI_Send(&n, 1, MPI_UINT64_T, to, 0, MPI_COMM_WORLD), "MPI_Send");
  check(MPI_Send(text.data(), int(n), MPI_CHAR, to, 1, MPI_COMM_WORLD), "MPI_Send");
}

std::string Comm::receive_text(int from) {
  uint64_t n = 0;
  check(MPI_Recv(&n, 1, MPI_UINT64_T, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  std::string s(n, '\0');
  check(MPI_Recv(s.data(), int(n), MPI_CHAR, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Recv");
  return s;
}

std::vector<CommCounters> Comm::gather_counters() {
  std::vector<CommCounters> all(size_t(rank_ == 0 ? size_ : 0));
  if (size_ == 1) {
    all[0] = counters;
    return all;
  }
  check(MPI_Gather(&counters, int(sizeof(CommCounters)), MPI_BYTE, all.data(),
                   int(sizeof(CommCounters)), MPI_BYTE, 0, MPI_COMM_WORLD),
        "MPI_Gather");
  return all;
}

void Comm::finalize() {
  if (!mpi_ || finalized_) return;
  finalized_ = true;
  MPI_Finalize();
}

} // namespace hassium::cluster
