// Graphviz picture of one flush: instructions, dependency and weight edges, blocks as clusters.
#include "vem/node/partition_dot.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>

#include "ir/fusion/algorithms.h"
#include "ir/fusion/merge_cache.h"
#include "ir/text/printer.h"

extern char** environ;

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

std::string find_on_path(std::string_view name) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "";
  while (!dirs.empty()) {
    size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + std::string(name);
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

namespace {
// Runs `argv` and waits; its exit status, or -1 when it could not be started.
int run_and_wait(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}
} // namespace

PartitionDotWriter::PartitionDotWriter(std::string dir)
    : dir_(std::move(dir)), dot_program_(find_on_path("dot")) {}

std::string PartitionDotWriter::write(const Program& program, const Partition& partition,
                                      const FuserOptions& options) {
  std::string key = MergeCache::key(program, options);
  for (const auto& block : partition.blocks) {
    key += '|';
    for (size_t i : block) key += std::to_string(i) + ',';
  }
  if (!seen_.insert(key).second) return {};
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx",
                static_cast<unsigned long long>(std::hash<std::string>{}(key)));
  std::string stem = dir_ + "/partition-" + hash;
  std::error_code ec;
  if (std::filesystem::exists(stem + ".dot", ec)) return {};
  std::filesystem::create_directories(dir_, ec);
  // Written under a temporary name and renamed, so another process never sees half a file.
  std::string tmp = stem + ".dot." + std::to_string(::getpid());
  {
    std::ofstream out(tmp);
    out << partition_dot(program, partition, options.cost_model);
    if (!out) {
      if (!warned_write_)
        std::cerr << "hassium: warning: [profile] dot_dir: cannot write " << tmp << "\n";
      warned_write_ = true;
      std::filesystem::remove(tmp, ec);
      return {};
    }
  }
  std::filesystem::rename(tmp, stem + ".dot", ec);
  if (!dot_program_.empty() && program.instrs.size() <= kMaxPngInstructions) {
    std::string png_tmp = stem + ".png." + std::to_string(::getpid());
    int rc = run_and_wait({dot_program_, "-Tpng", "-o", png_tmp, stem + ".dot"});
    if (rc == 0) {
      std::filesystem::rename(png_tmp, stem + ".png", ec);
    } else {
      std::filesystem::remove(png_tmp, ec);
      if (!warned_png_)
        std::cerr << "hassium: warning: [profile] dot_dir: `" << dot_program_
                  << " -Tpng` failed (status " << rc << ") on " << stem << ".dot\n";
      warned_png_ = true;
    }
  }
  return stem + ".dot";
}

} // namespace hassium
