// `hassium info`: the configured stack, which of the engines and VEMs built in can run here (and
// why not), the cache directories and their sizes, and the versions of hassium and what it runs on.
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <string_view>

#include "bridge/cli/command.h"
#include "core/config.h"
#include "core/filter_registry.h"
#include "ve/cpu/host_info.h"
#include "vem/stack.h"

#ifndef HASSIUM_VERSION
#define HASSIUM_VERSION "unknown"
#endif

namespace {

namespace fs = std::filesystem;

// Every component of a registry (engines, VEMs) with what its probe finds here.
template <class Component>
void print_components(std::string_view title, const hassium::Registry<Component>& registry) {
  std::cout << title << ":\n";
  for (const auto& entry : registry.entries()) {
    hassium::ComponentProbe p = entry.value.probe();
    std::cout << "  " << entry.name << ": ";
    if (p.usable)
      std::cout << "available (" << p.text << ")\n";
    else
      std::cout << "unavailable: " << p.text << "\n";
    if (!p.detail.empty()) std::cout << "      " << p.detail << "\n";
  }
}

// "absent", or "N files, B bytes (M MiB)".
std::string dir_size(const std::string& dir) {
  std::error_code ec;
  if (dir.empty()) return "none";
  if (!fs::exists(dir, ec)) return "absent";
  int64_t files = 0, bytes = 0;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) {
      ++files;
      bytes += int64_t(it->file_size(ec));
    }
  char mib[32];
  std::snprintf(mib, sizeof mib, "%.1f", double(bytes) / (1 << 20));
  return std::to_string(files) + (files == 1 ? " file, " : " files, ") + std::to_string(bytes) +
         " bytes (" + mib + " MiB)";
}

// "Python X.Y.Z, NumPy A.B.C (/path/to/python)" of `python`, or empty when it does not run.
std::string python_versions(const std::string& python) {
  std::string cmd =
      "'" + python +
      "' -c 'import sys\nprint(\"Python \" + sys.version.split()[0], sys.executable)\n"
      "try:\n import numpy\n print(\"NumPy \" + numpy.__version__)\n"
      "except Exception as e:\n print(\"NumPy not importable\")' 2>/dev/null";
  FILE* f = popen(cmd.c_str(), "r");
  if (!f) return {};
  std::string out;
  std::array<char, 256> buf;
  while (fgets(buf.data(), int(buf.size()), f)) out += buf.data();
  if (pclose(f) != 0 || out.find('\n') == std::string::npos) return {};
  std::string first = out.substr(0, out.find('\n'));
  std::string second = out.substr(first.size() + 1);
  if (!second.empty() && second.back() == '\n') second.pop_back();
  size_t sp = first.find(' ', 7); // "Python X.Y.Z /path"
  if (sp == std::string::npos) return {};
  return first.substr(0, sp) + ", " + second + " (" + first.substr(sp + 1) + ")";
}

// The Python the build's module was made for, else the first python3 on PATH.
std::string python_line() {
#ifdef HASSIUM_BUILD_PYTHON
  if (std::string v = python_versions(HASSIUM_BUILD_PYTHON); !v.empty()) return v;
#endif
  std::string v = python_versions("python3");
  return v.empty() ? "python3 not found on PATH" : v;
}

void print_info() {
  auto config = hassium::Config::global();
  auto value = [&](const char* s, const char* k) { return config->value(s, k).text; };
  std::cout << "hassium " << HASSIUM_VERSION << "\n";
  std::cout << "config file: " << (config->file().empty() ? "none, defaults" : config->file())
            << "\n";
  std::string filters = value("stack", "filters");
  std::cout << "stack:\n"
            << "  engine = " << value("stack", "engine") << ", vem = " << value("stack", "vem")
            << ", filters = " << (filters.empty() ? "(none)" : filters) << "\n"
            << "  fuser: algorithm " << value("fuser", "algorithm") << ", cost model "
            << value("fuser", "cost_model") << ", merge cache " << value("fuser", "cache") << "\n"
            << "  cpu: threads " << value("cpu", "threads") << " (0 = all), opt level "
            << value("cpu", "opt_level") << ", kernel cache " << value("cpu", "kernel_cache")
            << "\n"
            << "  filters in this build: " << hassium::filter_registry().joined_names() << "\n";
  print_components("engines", hassium::engine_registry());
  print_components("vems", hassium::vem_registry());
  std::cout << "caches:\n"
            << "  kernels (cpu.cache_dir, used when kernel_cache = disk): "
            << value("cpu", "cache_dir") << ": " << dir_size(value("cpu", "cache_dir")) << "\n"
            << "  partitions (fuser.cache_dir, used when cache = disk): "
            << value("fuser", "cache_dir") << ": " << dir_size(value("fuser", "cache_dir")) << "\n";
  std::cout << "versions:\n"
            << "  hassium " << HASSIUM_VERSION << "\n"
            << "  LLVM " << hassium::cpu_host_info().llvm_version << "\n"
            << "  python: " << python_line() << "\n";
}

} // namespace

HS_CLI_COMMAND(info) {
  auto* sub = app.add_subcommand(
      "info", "Print the configured stack, the engines and VEMs built in and whether they can "
              "run here (and why not), the cache directories with their sizes, and versions.");
  sub->callback([&exit_code] {
    print_info();
    exit_code = 0;
  });
}
