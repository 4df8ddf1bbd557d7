// Merge cache: canonical keys, the in-memory table, the checked on-disk store.
#include "ir/fusion/merge_cache.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <numeric>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "core/cache_file.h"
#include "core/pointer_index.h"
#include "core/thread_scratch.h"
#include "core/view_index.h"
#include "ir/fusion/algorithms.h"
#include "ir/fusion/fusibility.h"
#include "ir/fusion/view_boxes.h"

namespace hassium {

namespace {

// 4: keys number the views of read-only bases at each appearance
constexpr char kFileMagic[8] = {'H', 'S', 'F', 'P', '0', '0', '0', '4'};
constexpr size_t kMaxFileBytes = size_t(1) << 30;
constexpr const char* kCacheName = "merge cache";

template <typename T> void put(std::string& s, T x) {
  char buf[sizeof(T)];
  std::memcpy(buf, &x, sizeof(T));
  s.append(buf, sizeof(T));
}

void put_text(std::string& s, std::string_view text) {
  put<uint32_t>(s, uint32_t(text.size()));
  s.append(text);
}

// Bounds-checked reading of a file's bytes; any shortfall makes ok() false.
class Reader {
public:
  explicit Reader(std::string_view data) : data_(data) {}
  template <typename T> T get() {
    T x{};
    if (data_.size() - pos_ < sizeof(T)) {
      ok_ = false;
      pos_ = data_.size();
      return x;
    }
    std::memcpy(&x, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return x;
  }
  std::string_view bytes(uint64_t n) {
    if (data_.size() - pos_ < n) {
      ok_ = false;
      pos_ = data_.size();
      return {};
    }
    std::string_view s = data_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  bool ok() const { return ok_; }
  size_t pos() const { return pos_; }
  bool at_end() const { return pos_ == data_.size(); }

private:
  std::string_view data_;
  size_t pos_ = 0;
  bool ok_ = true;
};

std::string hex(uint64_t h) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

} // namespace

uint64_t MergeCache::hash_key(std::string_view key) {
  return XXH3_64bits(key.data(), key.size());
}

MergeCache::MergeCache() : MergeCache(Options{}) {}

MergeCache::MergeCache(Options options) : options_(std::move(options)) {
  if (options_.max_entries == 0) options_.max_entries = 1;
}

const Registry<MergeCacheMode>& merge_cache_registry() {
  static const Registry<MergeCacheMode> registry(
      "fuser.cache", "merge cache mode",
      {{"none", MergeCacheMode::NONE, "every flush is partitioned anew"},
       {"memory", MergeCacheMode::MEMORY, "partitions of this process"},
       {"disk", MergeCacheMode::DISK, "partitions shared between processes, in cache_dir"}});
  return registry;
}

std::unique_ptr<MergeCache> MergeCache::from_config(const Config& config) {
  const MergeCacheMode mode = config.component("fuser", "cache", merge_cache_registry());
  if (mode == MergeCacheMode::NONE) return nullptr;
  Options o;
  if (mode == MergeCacheMode::DISK) o.dir = config.get_string("fuser", "cache_dir");
  return std::make_unique<MergeCache>(o);
}

namespace {

// Appends raw bytes; the caller reserved room (an upper bound) beforehand.
class KeyWriter {
public:
  explicit KeyWriter(std::string& out) : out_(out) {}
  template <typename T> void put(T x) {
    std::memcpy(out_.data() + n_, &x, sizeof(T));
    n_ += sizeof(T);
  }
  void text(std::string_view s) {
    put<uint32_t>(uint32_t(s.size()));
    std::memcpy(out_.data() + n_, s.data(), s.size());
    n_ += s.size();
  }
  size_t size() const { return n_; }

private:
  std::string& out_;
  size_t n_ = 0;
};

} // namespace

namespace {

// Per dimension of a view: extent 1, broadcast (stride 0), reversed (negative stride).
uint8_t dim_flags(const View& v, size_t d) {
  // Extent 0 too: an empty view conflicts with nothing, not even an identical view, so its
  // program has fewer dependencies than one of the same structure with elements there.
  return uint8_t((v.shape[d] == 1 ? 1 : 0) | (v.stride[d] == 0 ? 2 : 0) |
                 (v.stride[d] < 0 ? 4 : 0) | (v.shape[d] == 0 ? 8 : 0));
}

// Shapes -> dense numbers in order of first insertion (open addressing, O(1) reset).
class ShapeIndex {
public:
  void reset(size_t expected) { table_.reset(expected); }
  uint32_t insert(const Dims& shape) {
    const uint64_t h = XXH3_64bits(shape.data(), shape.size() * sizeof(int64_t));
    const uint32_t next = uint32_t(table_.size());
    bool fresh;
    return table_
        .find_or_insert(
            h, [&](const Slot& s) { return s.hash == h && *s.shape == shape; },
            [&](Slot& s) {
              s.shape = &shape;
              s.hash = h;
              s.id = next;
            },
            fresh)
        .id;
  }

private:
  struct Slot {
    const Dims* shape = nullptr;
    uint64_t hash = 0;
    uint32_t generation = 0;
    uint32_t id = 0;
    uint64_t home() const { return hash; }
  };
  GenerationTable<Slot> table_;
};

} // namespace

void MergeCache::write_key(const Program& program, const FuserOptions& options, std::string& out,
                           Layout* layout, std::vector<Base*>* bases, bool* overlap_free,
                           std::vector<uint32_t>* overlapping, bool* small) {
  if (overlapping) overlapping->clear();
  size_t bound = 40 + std::max<size_t>(options.algorithm.size(), 6) + options.cost_model.size();
  size_t operands = 0;
  for (const Instruction& ins : program.instrs) {
    bound += 3 + 8;
    operands += ins.operands.size();
    for (const Operand& opnd : ins.operands)
      if (const View* v = std::get_if<View>(&opnd))
        bound += 1 + 4 + 2 + 4 + 1 + 4 + v->shape.size();
      else
        bound += 2;
  }
  out.resize(bound);
  KeyWriter k(out);
  // "HSK6" (5: views of read-only bases are not identity-tracked; 6: the algorithm and its
  // budget at the end, once the bytes that decide `small` are counted)
  k.put<uint32_t>(0x364b5348);
  k.text(options.cost_model);
  k.put<int64_t>(options.split_block_size);
  k.put<uint32_t>(uint32_t(program.instrs.size()));
  // Bases, distinct views and shapes are numbered by first appearance: the key keeps which
  // operands share a base, are the same view or have the same shape, not the numbers. The
  // layout words: each distinct view's geometry once (an identical view repeats it).
  // Per-thread tables, reached through references (one TLS lookup, not one per use).
  thread_local PointerIndex tls_ids;
  thread_local ViewIndex tls_views;
  thread_local ShapeIndex tls_shapes;
  thread_local std::vector<int64_t> tls_words, tls_offsets, tls_relative, tls_first_offset;
  // Per base (by key number): whether a compute instruction writes it.
  thread_local std::vector<uint8_t> tls_written_base;
  struct Span {
    uint32_t base;
    int64_t lo, hi;
    int64_t offset; // then, its residue modulo its base's stride gcd
    const View* view;
  };
  // Per base: the gcd of its distinct views' strides (of extents > 1); 0 while there are none.
  thread_local std::vector<int64_t> tls_stride_gcd;
  thread_local std::vector<Span> tls_spans;      // of the distinct non-empty views
  thread_local std::vector<uint8_t> tls_spanned; // per view number: in `spans` already
  PointerIndex& ids = pinned(tls_ids);
  ViewIndex& views = pinned(tls_views);
  ShapeIndex& shapes = pinned(tls_shapes);
  std::vector<int64_t>& words = pinned(tls_words);
  std::vector<int64_t>& offsets = pinned(tls_offsets);
  std::vector<int64_t>& relative = pinned(tls_relative);         // offset - the base's first view's
  std::vector<int64_t>& first_offset = pinned(tls_first_offset); // per base, by key number
  relative.clear();
  first_offset.clear();
  std::vector<uint8_t>& written_base = pinned(tls_written_base);
  written_base.clear();
  std::vector<Span>& spans = pinned(tls_spans);
  spans.clear();
  std::vector<uint8_t>& spanned = pinned(tls_spanned);
  spanned.clear();
  std::vector<int64_t>& stride_gcd = pinned(tls_stride_gcd);
  stride_gcd.clear();
  ids.reset(program.bases.size());
  views.reset(operands);
  shapes.reset(operands);
  words.clear();
  offsets.clear();
  if (bases) bases->clear();
  // The bases some compute instruction writes (the access table's rule: its operand 0), looked
  // up once per base at its first appearance: only their views are numbered as distinct views
  // (identity tracked). A view of a base the program only reads is a new view number at each
  // appearance: whether two reads see the same view decides no dependency and no block's
  // legality, and kernel planners merge identical views only of bases their block writes
  // (ve/plan), so a program whose reads coincide differently (a gather's data-dependent rows,
  // x[i] beside x[j] where i == j sometimes) has the same key and reuses the same plan.
  thread_local PointerIndex tls_written;
  PointerIndex& written = pinned(tls_written);
  written.reset(program.instrs.size());
  for (const Instruction& ins : program.instrs)
    if (!ins.is_system() && ins.is_view(0)) written.insert(ins.view(0).base.get());
  // Per base (by key number): its first tracked view and that view's number. Most bases (a
  // loop's temporaries) have one view, written, read and FREEd: an identical view is found by
  // comparing with the first, and the base's views go into the ViewIndex (hashed) only once a
  // second distinct one appears (`indexed`: for a written base, every view is tracked, so this
  // also says it has several views, which the overlap-free test below asks).
  struct FirstTracked {
    const View* view = nullptr;
    int id = 0;
    bool indexed = false; // a second distinct view appeared: the base's views are in `views`
  };
  thread_local std::vector<FirstTracked> tls_first_tracked;
  std::vector<FirstTracked>& first_tracked = pinned(tls_first_tracked);
  first_tracked.clear();
  auto tracked_view_id = [&](uint32_t base_id, const View& v, int next) {
    FirstTracked& f = first_tracked[base_id];
    if (!f.view) {
      f.view = &v;
      f.id = next;
      return next;
    }
    if (!f.indexed) {
      if (f.view->identical(v)) return f.id;
      views.find_or_insert(*f.view, 0, f.id);
      f.indexed = true;
    }
    return views.find_or_insert(v, 0, next);
  };
  uint32_t view_count = 0;
  double bytes = 0; // of the compute instructions' views, for the size class
  size_t compute = 0;
  for (const Instruction& ins : program.instrs) {
    const bool system = ins.is_system();
    compute += !system;
    k.put<uint16_t>(uint16_t(ins.op));
    k.put<uint8_t>(uint8_t(ins.operands.size()));
    for (size_t o = 0; o < ins.operands.size(); ++o) {
      const Operand& opnd = ins.operands[o];
      if (const View* v = std::get_if<View>(&opnd)) {
        if (!system) bytes += v->bytes();
        bool fresh;
        k.put<uint8_t>('V');
        const uint32_t base_id = ids.insert(v->base.get(), fresh);
        k.put<uint32_t>(base_id);
        if (fresh) { // base numbers are dense, in first appearance: a new one is the next
          k.put<uint8_t>(uint8_t(v->base->dtype));
          k.put<uint8_t>(v->base->data != nullptr || v->base->external_owner != nullptr);
          if (bases) bases->push_back(v->base.get());
          written_base.push_back(written.contains(v->base.get()));
          first_tracked.push_back({});
        }
        const int next = int(view_count);
        const bool tracked = system || written_base[base_id];
        const int id = tracked ? tracked_view_id(base_id, *v, next) : next;
        if (id == next) {
          ++view_count;
          spanned.push_back(0); // view numbers are dense, in first appearance
        }
        k.put<uint32_t>(uint32_t(id));
        if (overlap_free) {
          if (fresh) stride_gcd.push_back(0);
          // The compute instructions' views only: a FREE or SYNC accesses no element (a FREE
          // names the whole base, 1-D, beside a temporary's 2-D view: no overlap to check).
          if (!system && !spanned[size_t(id)] && v->size() > 0 && written_base[base_id]) {
            spanned[size_t(id)] = 1;
            spans.push_back({base_id, v->min_index(), v->max_index(), v->offset, v});
            int64_t& g = stride_gcd[base_id];
            for (size_t d = 0; d < v->shape.size(); ++d)
              if (v->shape[d] > 1) g = std::gcd(g, v->stride[d] < 0 ? -v->stride[d] : v->stride[d]);
          }
        }
        if (id != next) continue; // identical to an earlier operand: all said already
        k.put<uint8_t>(uint8_t(v->shape.size()));
        k.put<uint32_t>(shapes.insert(v->shape));
        for (size_t d = 0; d < v->shape.size(); ++d) k.put<uint8_t>(dim_flags(*v, d));
        if (layout) {
          if (fresh) first_offset.push_back(v->offset); // (a new base has a new view)
          words.push_back(v->base->nelem);
          offsets.push_back(v->offset);
          relative.push_back(v->offset - first_offset[base_id]);
          // (Element by element: vector::insert of a range costs more than these few words.)
          for (int64_t e : v->shape) words.push_back(e);
          for (int64_t s : v->stride) words.push_back(s);
        }
      } else {
        k.put<uint8_t>('C');
        k.put<uint8_t>(uint8_t(std::get<Scalar>(opnd).dtype));
      }
    }
    // A reduction's or scan's axis shapes its loops (which blocks are fusible, the kernel):
    // it is structure, not data, so its value is in the key.
    if ((ins.info().rule == SigRule::REDUCE || ins.info().rule == SigRule::ARG) &&
        ins.operands.size() > 2 && ins.is_constant(2))
      k.put<int64_t>(ins.axis());
  }
  // The size class: which power of 16 the bytes per compute instruction are in. A partition
  // depends on the data's size (fuse() cuts blocks of small data, algorithms weigh bytes), so
  // programs of one structure but sizes far apart get entries of their own.
  // The algorithm in effect: with `small` asked, options_in_effect's rule from the bytes
  // counted above (small_program's sum: every view of the compute instructions), so that the
  // flush's key needs no pass of its own for it.
  std::string_view algorithm = options.algorithm;
  if (small) {
    *small = algorithm_registry().find(options.algorithm).value.searches &&
             options.search_min_bytes > 0 &&
             bytes < double(options.search_min_bytes) * double(compute);
    if (*small) algorithm = "linear";
  }
  k.text(algorithm);
  k.put<int64_t>(algorithm == "optimal" ? options.optimal_budget : 0);
  int size_class = 0;
  for (double b = compute ? bytes / double(compute) : 0; b >= 16 && size_class < 255; b /= 16)
    ++size_class;
  k.put<uint8_t>(uint8_t(size_class));
  out.resize(k.size());
  if (overlap_free) {
    // The written bases with several views: views whose offsets differ modulo the gcd g of the
    // base's strides share no element (each element index is offset + a multiple of g: the
    // columns of a matrix, interleaved); among views of one residue, the intervals, sorted, must
    // not meet. Where they do, the base's views may still be apart as boxes of rows and columns
    // (ir/fusion/view_boxes.h: a matrix's columns and one of its rows, whose strides' gcd is 1).
    *overlap_free = true;
    std::erase_if(spans, [&](const Span& s) { return !first_tracked[s.base].indexed; });
    for (Span& s : spans) {
      const int64_t g = stride_gcd[s.base];
      s.offset = g > 1 ? ((s.offset % g) + g) % g : 0;
    }
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
      if (a.base != b.base) return a.base < b.base;
      return a.offset != b.offset ? a.offset < b.offset : a.lo < b.lo;
    });
    thread_local std::vector<const View*> tls_base_views;
    std::vector<const View*>& base_views = pinned(tls_base_views);
    for (size_t first = 0, end; first < spans.size() && (*overlap_free || overlapping);
         first = end) {
      bool apart = true;
      for (end = first + 1; end < spans.size() && spans[end].base == spans[first].base; ++end)
        if (spans[end].offset == spans[end - 1].offset && spans[end].lo <= spans[end - 1].hi)
          apart = false;
      if (apart) continue;
      base_views.clear();
      for (size_t i = first; i < end; ++i) base_views.push_back(spans[i].view);
      if (boxes_disjoint(base_views, 4 * base_views.size())) continue;
      *overlap_free = false;
      if (overlapping) overlapping->push_back(spans[first].base);
    }
  }
  if (layout) {
    // The geometry, then everything: the offsets hashed with the geometry as the seed.
    XXH128_hash_t g = XXH3_128bits(words.data(), words.size() * sizeof(int64_t));
    XXH128_hash_t h =
        XXH3_128bits_withSeed(offsets.data(), offsets.size() * sizeof(int64_t), g.low64 ^ g.high64);
    XXH128_hash_t r = XXH3_128bits_withSeed(relative.data(), relative.size() * sizeof(int64_t),
                                            g.low64 ^ g.high64);
    // All zero means unknown; a layout that hashes to it is just never taken as known.
    *layout = {h.low64, h.high64, g.low64, g.high64, r.low64, r.high64};
  }
}

void MergeCache::note_stale() {
  std::lock_guard lock(mutex_);
  --stats_.hits;
  ++stats_.misses;
  ++stats_.stale;
}

std::string MergeCache::key(const Program& program, const FuserOptions& options) {
  std::string k;
  write_key(program, options, k);
  return k;
}

MergeCache::Layout MergeCache::layout(const Program& program) {
  thread_local std::string key;
  Layout l{};
  write_key(program, FuserOptions{}, key, &l);
  return l;
}

MergeCache::Entry* MergeCache::entry(std::string_view key, uint64_t hash) {
  auto [lo, hi] = entries_.equal_range(hash);
  for (auto it = lo; it != hi; ++it)
    if (it->second.key == key) return &it->second;
  return nullptr;
}

std::optional<Partition> MergeCache::find(std::string_view key, size_t size,
                                          Layout* stored_layout) {
  const uint64_t h = hash_key(key);
  if (stored_layout) *stored_layout = {};
  {
    std::lock_guard lock(mutex_);
    if (Entry* e = entry(key, h)) {
      ++stats_.hits;
      if (stored_layout) *stored_layout = e->layout;
      return e->partition;
    }
  }
  if (!options_.dir.empty()) {
    if (auto p = read_disk(key, h, size)) {
      std::lock_guard lock(mutex_);
      ++stats_.hits;
      ++stats_.disk_hits;
      remember(key, h, *p, {});
      return p;
    }
  }
  std::lock_guard lock(mutex_);
  ++stats_.misses;
  return std::nullopt;
}

void MergeCache::insert(std::string_view key, size_t size, const Partition& partition,
                        Layout layout) {
  const uint64_t h = hash_key(key);
  {
    std::lock_guard lock(mutex_);
    remember(key, h, partition, layout);
  }
  if (!options_.dir.empty()) write_disk(key, h, size, partition);
}

void MergeCache::note_checked(std::string_view key, const Partition& p, Layout layout) {
  std::lock_guard lock(mutex_);
  if (Entry* e = entry(key, hash_key(key))) {
    e->partition = p;
    e->layout = layout;
  }
}

void MergeCache::remember(std::string_view key, uint64_t hash, const Partition& p, Layout layout) {
  if (Entry* e = entry(key, hash)) {
    e->partition = p;
    e->layout = layout;
    return;
  }
  while (entries_.size() >= options_.max_entries && !age_.empty()) {
    auto it = entries_.find(age_.front());
    age_.pop_front();
    if (it != entries_.end()) entries_.erase(it);
  }
  entries_.emplace(hash, Entry{std::string(key), p, layout});
  age_.push_back(hash);
  stats_.entries = entries_.size();
}

void MergeCache::clear() {
  std::lock_guard lock(mutex_);
  entries_.clear();
  age_.clear();
  stats_.entries = 0;
}

MergeCache::Stats MergeCache::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void MergeCache::write_disk(std::string_view key, uint64_t hash, size_t size, const Partition& p) {
  std::string buf(kFileMagic, sizeof kFileMagic);
  put<uint64_t>(buf, key.size());
  buf.append(key);
  put<uint64_t>(buf, size);
  put<uint64_t>(buf, p.blocks.size());
  for (const auto& b : p.blocks) {
    put<uint64_t>(buf, b.size());
    for (size_t i : b) put<uint32_t>(buf, uint32_t(i));
  }
  put<int64_t>(buf, p.cost);
  put<uint8_t>(buf, p.proven_optimal);
  put_text(buf, p.algorithm);
  put_text(buf, p.cost_model);
  put<uint64_t>(buf, XXH64(buf.data(), buf.size(), 0));

  std::string error = cache_file::write_atomically(options_.dir, hex(hash) + ".hsfp", buf);
  {
    std::lock_guard lock(mutex_);
    ++(error.empty() ? stats_.disk_writes : stats_.disk_errors);
  }
  if (!error.empty())
    cache_file::warn_once(kCacheName, options_.dir, "write",
                          error + "; partitions are computed without being kept on disk");
}

std::optional<Partition> MergeCache::read_disk(std::string_view key, uint64_t hash, size_t size) {
  const std::string name = hex(hash) + ".hsfp";
  std::string data, why;
  auto status = cache_file::read_regular(options_.dir + "/" + name, kMaxFileBytes, data, why);
  if (status == cache_file::ReadStatus::MISSING) return std::nullopt;
  auto reject = [&](const char* reason) -> std::optional<Partition> {
    {
      std::lock_guard lock(mutex_);
      ++stats_.disk_rejected;
    }
    cache_file::warn_once(kCacheName, options_.dir, "rejected",
                          "ignored " + name + " (" + (why.empty() ? reason : why) +
                              "); it is recomputed and replaced");
    return std::nullopt;
  };
  if (status == cache_file::ReadStatus::REJECTED) return reject("");
  if (data.size() < sizeof kFileMagic + 8) return reject("truncated");
  if (std::memcmp(data.data(), kFileMagic, 4) != 0) return reject("not a partition file");
  if (std::memcmp(data.data(), kFileMagic, sizeof kFileMagic) != 0)
    return reject("another format version");
  const size_t body = data.size() - 8;
  uint64_t sum;
  std::memcpy(&sum, data.data() + body, 8);
  if (XXH64(data.data(), body, 0) != sum) return reject("bad checksum");

  Reader r(std::string_view(data).substr(sizeof kFileMagic, body - sizeof kFileMagic));
  uint64_t key_len = r.get<uint64_t>();
  if (!r.ok() || key_len != key.size() || r.bytes(key_len) != key)
    return reject("the partition of another program");
  if (r.get<uint64_t>() != size) return reject("another instruction count");
  uint64_t nblocks = r.get<uint64_t>();
  if (!r.ok() || nblocks > size) return reject("not a partition of the program");
  Partition p;
  std::vector<uint8_t> seen(size, 0);
  size_t total = 0;
  p.blocks.resize(nblocks);
  for (auto& b : p.blocks) {
    uint64_t len = r.get<uint64_t>();
    if (!r.ok() || len == 0 || len > size - total) return reject("not a partition of the program");
    b.resize(len);
    for (auto& i : b) {
      i = r.get<uint32_t>();
      if (!r.ok() || i >= size || seen[i]) return reject("not a partition of the program");
      seen[i] = 1;
    }
    total += len;
  }
  if (total != size) return reject("not a partition of the program");
  p.cost = r.get<int64_t>();
  p.proven_optimal = r.get<uint8_t>() != 0;
  uint32_t alg_len = r.get<uint32_t>();
  p.algorithm = std::string(r.bytes(alg_len));
  uint32_t model_len = r.get<uint32_t>();
  p.cost_model = std::string(r.bytes(model_len));
  if (!r.ok() || !r.at_end()) return reject("not a partition of the program");
  return p;
}

} // namespace hassium
