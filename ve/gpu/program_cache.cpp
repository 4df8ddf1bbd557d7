// ProgramCache: memory map by key, then the disk (`<key>.gpuprog`: the device's program binary,
// `<key>.gpuref`: "<batch key> <suffix>", each framed with its key and checksum by
// cache_file::frame), then the compiler, the missing sources in batches.
#include "ve/gpu/program_cache.h"
#include "core/profile.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <string_view>
#include <thread>

#include <xxhash.h>

#include "core/cache_file.h"
#include "ve/gpu/program_batch.h"

namespace hassium::gpu {

namespace {
// The cache files' frame (core/cache_file.h): 6 bytes of kind, 2 of version.
constexpr const char* kProgramMagic = "HSGPRG02";
constexpr const char* kRefMagic = "HSGREF01";
constexpr size_t kMaxProgramFile = size_t(256) << 20;
constexpr size_t kMaxRefFile = 4096;

std::string hex64(uint64_t h) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

bool is_key(std::string_view s) {
  return s.size() == 32 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}
} // namespace

ProgramCache::ProgramCache(GpuDevice& device, std::string dir)
    : device_(device), dir_(std::move(dir)), header_(program_header(device.dialect())) {}

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
  return hex64(h.high64) + hex64(h.low64);
}

std::vector<ProgramCache::Found>
ProgramCache::get_all(const std::vector<const std::string*>& sources, unsigned threads) {
  std::vector<Found> found(sources.size());
  // What memory and disk do not hold, once per key: compiled below.
  struct Item {
    std::string key;
    const std::string* source;
    std::unique_ptr<DeviceProgram> alone; // compiled by itself
    std::exception_ptr error;
    Held held{nullptr, {}};
  };
  std::vector<Item> items;
  std::unordered_map<std::string, size_t> queued;
  std::vector<std::pair<size_t, size_t>> waiting; // (source, item)
  const auto t0 = std::chrono::steady_clock::now();
  bool looked = false; // on disk or compiled: the time counts
  for (size_t i = 0; i < sources.size(); ++i) {
    std::string k = key(*sources[i]);
    if (auto it = memory_.find(k); it != memory_.end()) {
      ++stats_.memory_hits;
      found[i].program = it->second.program;
      found[i].suffix = it->second.suffix;
      continue;
    }
    if (auto it = queued.find(k); it != queued.end()) {
      waiting.emplace_back(i, it->second);
      continue;
    }
    looked = true;
    Held held{nullptr, {}};
    if (!dir_.empty() && from_disk(k, held)) {
      ++stats_.disk_hits;
      found[i].program = held.program;
      found[i].suffix = held.suffix;
      memory_.emplace(std::move(k), std::move(held));
      continue;
    }
    queued.emplace(k, items.size());
    waiting.emplace_back(i, items.size());
    items.push_back({std::move(k), sources[i], nullptr, nullptr});
  }

  // Batches: the items that start with the header, split in up to `threads` runs of consecutive
  // items of near-equal length; the others (and runs of one) compile alone.
  struct Batch {
    std::vector<size_t> items;
    std::string key;
    std::unique_ptr<DeviceProgram> program;
    int64_t builds = 0;
  };
  std::vector<Batch> batches;
  std::vector<size_t> batchable;
  for (size_t j = 0; j < items.size(); ++j) {
    if (has_header(*items[j].source, header_))
      batchable.push_back(j);
    else
      batches.push_back({{j}, {}, nullptr});
  }
  const size_t parts = std::min<size_t>(batchable.size(), std::max(1u, threads));
  for (size_t b = 0, at = 0; b < parts; ++b) {
    const size_t end = batchable.size() * (b + 1) / parts;
    batches.push_back({{batchable.begin() + long(at), batchable.begin() + long(end)}, {}, nullptr});
    at = end;
  }
  auto compile_alone = [&](Item& item) {
    try {
      item.alone = device_.compile(*item.source);
    } catch (...) {
      item.error = std::current_exception();
    }
  };
  auto compile = [&](Batch& b) {
    ++b.builds;
    if (b.items.size() == 1) return compile_alone(items[b.items[0]]);
    std::vector<const std::string*> texts;
    for (size_t j : b.items) texts.push_back(items[j].source);
    const std::string text = batch_source(header_, texts);
    b.key = key(text);
    try {
      b.program = device_.compile(text);
    } catch (...) { // one of them does not compile: which one, and the others, alone
      for (size_t j : b.items) compile_alone(items[j]);
      b.builds += int64_t(b.items.size());
    }
  };
  const size_t n = std::min<size_t>(batches.size(), std::max(1u, threads));
  if (n <= 1) {
    for (Batch& b : batches) compile(b);
  } else {
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    for (size_t t = 0; t < n; ++t)
      pool.emplace_back([&] {
        for (size_t i; (i = next++) < batches.size();) compile(batches[i]);
      });
    for (std::thread& t : pool) t.join();
  }

  for (Batch& b : batches) {
    stats_.builds += b.builds;
    if (b.program) {
      const bool stored = !dir_.empty() && to_disk(b.key, *b.program);
      DeviceProgram* p = programs_.try_emplace(b.key, std::move(b.program)).first->second.get();
      for (size_t r = 0; r < b.items.size(); ++r) {
        Item& item = items[b.items[r]];
        item.held = {p, batch_suffix(r)};
        if (stored) ref_to_disk(item.key, b.key, item.held.suffix);
      }
      continue;
    }
    for (size_t j : b.items) {
      Item& item = items[j];
      if (!item.alone) continue;
      if (!dir_.empty()) to_disk(item.key, *item.alone);
      item.held = {programs_.try_emplace(item.key, std::move(item.alone)).first->second.get(), {}};
    }
  }
  for (Item& item : items)
    if (item.held.program) {
      ++stats_.compiled;
      memory_.emplace(item.key, item.held);
    }
  for (auto [i, j] : waiting) {
    if (items[j].error) { // (an item with an error has no program)
      found[i].error = items[j].error;
    } else {
      found[i].program = items[j].held.program;
      found[i].suffix = items[j].held.suffix;
    }
  }
  if (looked) stats_.compile_seconds += seconds_since(t0);
  return found;
}

bool ProgramCache::from_disk(const std::string& k, Held& held) {
  if (DeviceProgram* p = load_program(k, /*missing_is_rejected=*/false)) {
    held = {p, {}};
    return true;
  }
  std::string data;
  std::string_view line;
  if (!read_framed(k + ".gpuref", kMaxRefFile, kRefMagic, k, data, line,
                   /*missing_is_rejected=*/false))
    return false;
  // "<batch key> <suffix>"
  const size_t space = line.find(' ');
  const std::string batch_key(line.substr(0, space));
  const std::string suffix(space == std::string_view::npos ? "" : line.substr(space + 1));
  if (!is_key(batch_key) || suffix.rfind("_b", 0) != 0) {
    ++stats_.disk_rejected;
    return false;
  }
  DeviceProgram* p = load_program(batch_key, /*missing_is_rejected=*/true);
  if (!p) return false;
  held = {p, suffix};
  return true;
}

DeviceProgram* ProgramCache::load_program(const std::string& k, bool missing_is_rejected) {
  if (auto it = programs_.find(k); it != programs_.end()) return it->second.get();
  std::string data;
  std::string_view payload;
  if (!read_framed(k + ".gpuprog", kMaxProgramFile, kProgramMagic, k, data, payload,
                   missing_is_rejected))
    return nullptr;
  std::unique_ptr<DeviceProgram> p =
      device_.load(std::vector<char>(payload.begin(), payload.end()));
  if (!p) { // the device does not take it: compiled again
    ++stats_.disk_rejected;
    return nullptr;
  }
  return programs_.emplace(k, std::move(p)).first->second.get();
}

bool ProgramCache::read_framed(const std::string& name, size_t max_bytes, const char* magic,
                               const std::string& k, std::string& data, std::string_view& payload,
                               bool missing_is_rejected) {
  std::string why;
  cache_file::ReadStatus s = cache_file::read_regular(dir_ + "/" + name, max_bytes, data, why);
  if (s == cache_file::ReadStatus::MISSING) {
    if (missing_is_rejected) ++stats_.disk_rejected;
    return false;
  }
  if (s == cache_file::ReadStatus::REJECTED ||
      !cache_file::unframe(data, magic, "GPU cache file", "payload", k, payload).empty()) {
    ++stats_.disk_rejected;
    return false;
  }
  return true;
}

bool ProgramCache::to_disk(const std::string& k, const DeviceProgram& program) {
  std::vector<char> binary = program.binary();
  if (binary.empty()) return false;
  return write(k + ".gpuprog",
               cache_file::frame(kProgramMagic, k, std::string_view(binary.data(), binary.size())));
}

void ProgramCache::ref_to_disk(const std::string& k, const std::string& batch_key,
                               const std::string& suffix) {
  write(k + ".gpuref", cache_file::frame(kRefMagic, k, batch_key + " " + suffix));
}

bool ProgramCache::write(const std::string& name, const std::string& data) {
  std::string err = cache_file::write_atomically(dir_, name, data);
  if (err.empty()) return true;
  ++stats_.disk_write_errors;
  cache_file::warn_once("GPU kernel cache", dir_, "write", err);
  return false;
}

} // namespace hassium::gpu
