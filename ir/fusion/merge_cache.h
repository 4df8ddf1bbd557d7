// Merge cache (Sec. V-F): partitions of programs seen before, in memory and optionally on disk.
//
// The key is the structure of a program under fuser options: algorithm, cost model (and the
// budget for `optimal`), then per instruction the opcode and per operand either a view or a
// constant's dtype (never its value; but a reduction's or scan's axis, which shapes its loops,
// follows the instruction's operands). A view is its base renamed by first appearance (with
// its dtype and whether it holds data at its first appearance) and its view number (numbered by
// first appearance; identical views share one where the program writes their base, a view of a
// base it only reads is new at each appearance); a view's first appearance adds its ndim, its
// shape number (equal shapes share one) and per dimension whether the extent is 0 or 1, the
// stride 0 (broadcast) or negative. Absolute extents, offsets and strides are not in it, so a loop
// that records the same instructions on fresh temporaries hits, and so does one whose arrays
// shrink every iteration (Gauss elimination, LU). Which distinct views overlap is not in the
// key either: a hit is only used after check_partition() (ir/fusion/legality.h) accepts it for the
// program at hand (fuse() recomputes and replaces the entry otherwise). Keys are compared in full;
// their 64-bit xxHash (XXH3) only picks the slot.
//
// On disk, one file per key (`<hash>.hsfp` in the directory), written to a temporary file
// and renamed into place, so readers see a whole file or none, and many processes may share
// the directory (core/cache_file.h). A file is only trusted when it is a regular file and its
// checksum, its key and its partition (every instruction exactly once) check out; anything else
// counts as rejected, is ignored and replaced. A write that fails (full disk, read-only
// directory) counts as an error; either is warned about on stderr once per process.
// Thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/config.h"
#include "core/registry.h"
#include "ir/fusion/access_table.h"
#include "ir/fusion/fuser.h"
#include "ir/fusion/partition.h"

namespace hassium {

// [fuser] cache: no merge cache, one in memory, or one in memory backed by a directory.
enum class MergeCacheMode : uint8_t { NONE, MEMORY, DISK };
// The registry of those modes (id "fuser.cache").
const Registry<MergeCacheMode>& merge_cache_registry();

class MergeCache {
public:
  struct Options {
    size_t max_entries = 4096; // in memory; the oldest entry goes first
    std::string dir;           // on-disk store; empty = memory only
  };
  struct Stats {
    uint64_t hits = 0;          // answered from memory or disk
    uint64_t misses = 0;        // not found anywhere
    uint64_t disk_hits = 0;     // of `hits`, read from disk
    uint64_t disk_writes = 0;   // files written
    uint64_t disk_rejected = 0; // files found but corrupt, truncated or for another key
    uint64_t disk_errors = 0;   // files that could not be written
    uint64_t entries = 0;       // in memory now
    uint64_t stale = 0;         // found, but illegal for the program (counted as misses)
  };

  // What the key leaves out, hashed (see layout()).
  using Layout = FlushLayout;

  MergeCache();
  explicit MergeCache(Options options);
  // [fuser] cache = none | memory | disk, cache_dir; null for `none`.
  static std::unique_ptr<MergeCache> from_config(const Config& config);

  // The 64-bit XXH3 of a key (which picks its slot; keys are compared in full).
  static uint64_t hash_key(std::string_view key);
  // The canonical key of a program under these options.
  static std::string key(const Program& program, const FuserOptions& options);
  // The same into `out`, reusing its memory (fuse() keeps one per thread); in the same pass,
  // when asked, the program's layout (see layout()) and its bases in the key's order (by first
  // appearance among the operands: two programs with one key have their bases in one order).
  // `overlap_free`, when asked: no two distinct views of a base that a compute instruction
  // writes can share an element: their element intervals do not meet, or their offsets differ
  // modulo the gcd of the base's strides (a matrix's columns). Then no overlap between views
  // decides a block or a dependency (check_partition's rule 5 and its conflicts on overlapping
  // views do not arise): the program has the fewest constraints a program of its key can have (the
  // key holds the rest: bases, identical written views, shapes, axes), so a partition legal for any
  // program of the key is legal for it. `overlapping`, when asked with `overlap_free`: the
  // written bases (key numbers, ascending) whose distinct views are not all apart that way. Every
  // dependency and every rule-5 conflict is between views of one base, so a partition legal for a
  // program of the key is legal for this one when it is for these bases' accesses.
  // `small`, when given: `options` are taken as configured, and the key's algorithm is the one
  // in effect (options_in_effect, ir/fusion/program_key.h: `linear` for a small program of a
  // searching algorithm), which `small` tells; without it, `options` are the ones in effect.
  static void write_key(const Program& program, const FuserOptions& options, std::string& out,
                        Layout* layout = nullptr, std::vector<Base*>* bases = nullptr,
                        bool* overlap_free = nullptr, std::vector<uint32_t>* overlapping = nullptr,
                        bool* small = nullptr);

  // What the key leaves out: each distinct view's base size, offset, extents and strides, in
  // order of first appearance, as a 128-bit XXH3, then the same without the offsets (all zero =
  // unknown). A stored partition whose program had the same key and the same layout is the same
  // program up to base names: its blocks and cost hold as they are, without check_partition()
  // (a loop's repeated flushes take this path). The same geometry alone says that the views
  // only moved.
  static Layout layout(const Program& program);
  static bool same_geometry(const Layout& a, const Layout& b) {
    return a[2] == b[2] && a[3] == b[3] && (a[2] | a[3]) != 0;
  }
  // The same geometry, and every base's views moved by one distance: between views of one base
  // the overlaps are the same, so a partition legal for one program is legal for the other.
  static bool moved_together(const Layout& a, const Layout& b) {
    return same_geometry(a, b) && a[4] == b[4] && a[5] == b[5] && (a[4] | a[5]) != 0;
  }
  // A hit that check_partition() rejected: counted as a miss and in `stale`.
  void note_stale();

  // The partition stored for this key (`size` = the program's instruction count), if any;
  // `stored_layout`, when given, receives the layout it was stored with ({0, 0} from disk).
  std::optional<Partition> find(std::string_view key, size_t size, Layout* stored_layout = nullptr);
  void insert(std::string_view key, size_t size, const Partition& partition, Layout layout = {});
  // The stored partition of `key` passed check_partition() for a program of this layout and
  // `p` is it re-costed for that program: the entry (in memory) now holds `p` and the layout,
  // so a repeat of the layout skips the check.
  void note_checked(std::string_view key, const Partition& p, Layout layout);
  // Drops the in-memory entries (the disk store stays).
  void clear();
  Stats stats() const;
  const Options& options() const { return options_; }

private:
  struct Entry {
    std::string key;
    Partition partition;
    Layout layout{}; // of the program the partition was computed or checked for
  };
  Entry* entry(std::string_view key, uint64_t hash); // mutex_ held
  std::optional<Partition> read_disk(std::string_view key, uint64_t hash, size_t size);
  void write_disk(std::string_view key, uint64_t hash, size_t size, const Partition& p);
  void remember(std::string_view key, uint64_t hash, const Partition& p, Layout layout);

  Options options_;
  mutable std::mutex mutex_;
  std::unordered_multimap<uint64_t, Entry> entries_;
  std::deque<uint64_t> age_; // insertion order of the hashes, for eviction
  Stats stats_;
};

} // namespace hassium
