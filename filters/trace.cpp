// trace: appends each flushed program's bytecode to a file, for bug reports and replay.
//
// Contract: returns the program unchanged. Writes `# flush N` (N = 1, 2, ... per process),
// then `.base` lines for the bases not declared earlier in the file, then one line per
// instruction, and closes the file (so it is complete even if the process dies later). The
// file is started anew by the first flush of a process; `%p` in the name becomes the process
// id, so concurrent processes can trace side by side. The whole file parses as one program, so
// `hassium run FILE` replays it: a base keeps one name across flushes, and a different base
// that reuses a name already in the file (e.g. after the first one's FREE) is written as
// NAME_<k>. Values that the frontend wrote into memory directly (arrays made from NumPy data)
// are not in the trace; a replay sees only what the bytecode computes.
// Where the filter sits in [stack] filters decides what it shows: first = the frontend's
// program, last = what the VEM receives.
// Complexity: O(program text) per flush, plus one entry per distinct base in the process.
#include <fstream>
#include <mutex>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "filters/filters.h"
#include "ir/text/printer.h"

namespace hassium {

namespace {

struct TraceState {
  std::mutex mutex;
  int64_t flushes = 0;
  std::string file; // the path written so far (a change of path starts a new file)
  // Every base seen, by identity while it lives, with its name in the file.
  std::unordered_map<const Base*, std::pair<std::weak_ptr<Base>, BasePtr>> names;
  std::unordered_set<std::string> taken;
  size_t prune_at = 1024;
};

TraceState& state() {
  static TraceState s;
  return s;
}

std::string expand_pid(const std::string& pattern) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size() && pattern[i + 1] == 'p') {
      out += std::to_string(::getpid());
      ++i;
    } else {
      out += pattern[i];
    }
  }
  return out;
}

// The base that stands for `b` in the file (a stand-in carrying the file's name), and whether
// the file declares it with this flush.
BasePtr file_base(TraceState& s, const BasePtr& b, bool& is_new) {
  auto it = s.names.find(b.get());
  if (it != s.names.end() && it->second.first.lock() == b) {
    is_new = false;
    return it->second.second;
  }
  std::string name = b->name;
  for (int k = 2; s.taken.count(name); ++k) name = b->name + "_" + std::to_string(k);
  s.taken.insert(name);
  BasePtr stand_in = make_base(name, b->dtype, b->nelem);
  if (s.names.size() >= s.prune_at) { // forget bases that died (their names stay taken)
    std::erase_if(s.names, [](const auto& e) { return e.second.first.expired(); });
    s.prune_at = std::max<size_t>(1024, 2 * s.names.size());
  }
  s.names[b.get()] = {b, stand_in};
  is_new = true;
  return stand_in;
}

} // namespace

TraceOptions TraceOptions::from_config(const Config& config) {
  TraceOptions o;
  o.file = config.get_string("filters", "trace_file");
  return o;
}

void reset_trace() {
  TraceState& s = state();
  std::lock_guard lock(s.mutex);
  s.flushes = 0;
  s.file.clear();
  s.names.clear();
  s.taken.clear();
}

Program trace(Program p, const TraceOptions& options) {
  if (options.file.empty())
    HS_USER_ERROR() << "filter trace: [filters] trace_file is empty; set it to the file to write";
  TraceState& s = state();
  std::lock_guard lock(s.mutex);
  std::string path = expand_pid(options.file);
  bool fresh = path != s.file;
  if (fresh) {
    s.flushes = 0;
    s.file = path;
    s.names.clear();
    s.taken.clear();
  }
  // A copy of the program over stand-in bases that carry the names of the file.
  Program shown;
  std::unordered_map<const Base*, BasePtr> map;
  auto stand_in = [&](const BasePtr& b) {
    auto it = map.find(b.get());
    if (it != map.end()) return it->second;
    bool is_new = false;
    BasePtr f = file_base(s, b, is_new);
    if (is_new) shown.bases.push_back(f);
    map[b.get()] = f;
    return f;
  };
  for (const auto& b : p.bases) stand_in(b);
  for (const Instruction& ins : p.instrs) {
    Instruction c = ins;
    for (size_t k = 0; k < c.operands.size(); ++k)
      if (c.is_view(k)) c.view(k).base = stand_in(c.view(k).base);
    shown.instrs.push_back(std::move(c));
  }
  std::ofstream out(path, fresh ? std::ios::trunc : std::ios::app);
  if (!out) HS_USER_ERROR() << "filter trace: cannot open '" << path << "' for writing";
  out << "# flush " << ++s.flushes << "\n";
  for (const auto& b : shown.bases)
    out << ".base " << b->name << " " << dtype_name(b->dtype) << " " << b->nelem << "\n";
  for (const Instruction& ins : shown.instrs) out << print_instruction(ins) << "\n";
  if (!out) HS_USER_ERROR() << "filter trace: cannot write '" << path << "'";
  return p;
}

} // namespace hassium
