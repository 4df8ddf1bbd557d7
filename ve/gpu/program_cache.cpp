// ProgramCache: memory map by key, then the disk (`<key>.gpuprog`: a header naming the key, then
// the device's program binary), then the compiler.
#include "ve/gpu/program_cache.h"
#include "core/profile.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include <xxhash.h>

#include "core/cache_file.h"

namespace hassium::gpu {

namespace {
constexpr const char* kMagic = "hassium-gpu-program 1\n";
constexpr size_t kMaxFile = size_t(256) << 20;

} // namespace

std::string ProgramCache::key(const std::string& source) const {
  const DeviceInfo& info = device_.info();
  std::string text = source;
  text += '\0';
  text += info.name;
  text += '\0';
  text += info.arch;
  text += '\0';
  text += info.versions;
  XXH128_hash_t h = XXH3_128bits(text.data(), text.size());
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return hex;
}

std::vector<ProgramCache::Found>
ProgramCache::get_all(const std::vector<const std::string*>& sources, unsigned threads) {
  std::vector<Found> found(sources.size());
  // What memory and disk do not hold, once per key: compiled below.
  struct Work {
    std::string key;
    const std::string* source;
    std::unique_ptr<DeviceProgram> program;
    std::exception_ptr error;
  };
  std::vector<Work> work;
  std::unordered_map<std::string, size_t> queued;
  std::vector<std::pair<size_t, size_t>> waiting; // (source, work item)
  const auto t0 = std::chrono::steady_clock::now();
  bool looked = false; // on disk or compiled: the time counts
  for (size_t i = 0; i < sources.size(); ++i) {
    std::string k = key(*sources[i]);
    if (auto it = memory_.find(k); it != memory_.end()) {
      ++stats_.memory_hits;
      found[i].program = it->second.get();
      continue;
    }
    if (auto it = queued.find(k); it != queued.end()) {
      waiting.emplace_back(i, it->second);
      continue;
    }
    looked = true;
    if (!dir_.empty())
      if (std::unique_ptr<DeviceProgram> p = from_disk(k)) {
        ++stats_.disk_hits;
        found[i].program = memory_.emplace(k, std::move(p)).first->second.get();
        continue;
      }
    queued.emplace(k, work.size());
    waiting.emplace_back(i, work.size());
    work.push_back({std::move(k), sources[i], nullptr, nullptr});
  }
  auto compile = [&](Work& w) {
    try {
      w.program = device_.compile(*w.source);
    } catch (...) {
      w.error = std::current_exception();
    }
  };
  const size_t n = std::min<size_t>(work.size(), std::max(1u, threads));
  if (n <= 1) {
    for (Work& w : work) compile(w);
  } else {
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (size_t t = 0; t < n; ++t)
      pool.emplace_back([&] {
        for (size_t i; (i = next++) < work.size();) compile(work[i]);
      });
    for (std::thread& t : pool) t.join();
  }
  for (Work& w : work) {
    if (!w.program) continue;
    ++stats_.compiled;
    if (!dir_.empty()) to_disk(w.key, *w.program);
    memory_.emplace(w.key, std::move(w.program));
  }
  for (auto [i, wi] : waiting) {
    if (work[wi].error)
      found[i].error = work[wi].error;
    else
      found[i].program = memory_.at(work[wi].key).get();
  }
  if (looked) stats_.compile_seconds += seconds_since(t0);
  return found;
}

std::unique_ptr<DeviceProgram> ProgramCache::from_disk(const std::string& k) {
  std::string data, why;
  const std::string path = dir_ + "/" + k + ".gpuprog";
  cache_file::ReadStatus s = cache_file::read_regular(path, kMaxFile, data, why);
  if (s == cache_file::ReadStatus::MISSING) return nullptr;
  const std::string header = std::string(kMagic) + k + "\n";
  if (s == cache_file::ReadStatus::REJECTED || data.compare(0, header.size(), header) != 0) {
    ++stats_.disk_rejected;
    return nullptr;
  }
  std::vector<char> binary(data.begin() + long(header.size()), data.end());
  std::unique_ptr<DeviceProgram> p = device_.load(binary);
  if (!p) ++stats_.disk_rejected; // damaged, or the device does not take it: compiled again
  return p;
}

void ProgramCache::to_disk(const std::string& k, const DeviceProgram& program) {
  std::vector<char> binary = program.binary();
  if (binary.empty()) return;
  std::string data = std::string(kMagic) + k + "\n";
  data.append(binary.data(), binary.size());
  std::string err = cache_file::write_atomically(dir_, k + ".gpuprog", data);
  if (!err.empty()) {
    ++stats_.disk_write_errors;
    cache_file::warn_once("GPU kernel cache", dir_, "write", err);
  }
}

} // namespace hassium::gpu
