// grid_geometry and reduction_geometry: the sizes of every launch of a generated kernel.
#include "ve/gpu/launch_geometry.h"

#include <algorithm>

#include "core/error.h"

namespace hassium::gpu {

namespace {
int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}
int64_t floor_pow2(int64_t v) {
  int64_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}
int64_t ceil_pow2(int64_t v) {
  int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}
LaunchGeometry one_dimension(int64_t groups, int64_t local) {
  LaunchGeometry g;
  g.dims = 1;
  g.local[0] = size_t(local);
  g.global[0] = size_t(groups * local);
  return g;
}
// Rows that fill a device without cutting the axis; axes shorter than this run per row.
constexpr int64_t kRowsEnough = 4096;
constexpr int64_t kShortAxis = 512;
constexpr int64_t kItemsPerThread = 16;
constexpr int64_t kMaxChunks = 1024;
constexpr int64_t kRowItems = 65536; // work items a chunked hs_rows launch aims at
constexpr int64_t kMinChunk = 64;    // axis elements per chunk of hs_rows, at least
} // namespace

LaunchGeometry grid_geometry(int64_t items, const DeviceInfo& info, bool sequential) {
  HS_INTERNAL_ASSERT(items >= 0) << "a launch over " << items << " items";
  if (sequential || items <= 1) return one_dimension(1, 1);
  const int64_t limit = floor_pow2(std::max<int64_t>(1, int64_t(info.max_group_size)));
  const int64_t local = std::min({kDefaultGroup, limit, ceil_pow2(items)});
  return one_dimension(std::clamp<int64_t>(ceil_div(items, local), 1, kMaxGroups), local);
}

ReductionLaunch reduction_geometry(int64_t rows, int64_t axis, int group_size,
                                   const DeviceInfo& info, bool axis_innermost) {
  HS_INTERNAL_ASSERT(size_t(group_size) <= info.max_group_size)
      << "groups of " << group_size << " on a device of at most " << info.max_group_size;
  ReductionLaunch r;
  r.chunk = axis;
  if (rows >= kRowsEnough || axis < kShortAxis || rows == 0) {
    r.first = grid_geometry(rows, info);
    return r;
  }
  if (!axis_innermost) {
    r.chunks = std::clamp<int64_t>(ceil_div(kRowItems, rows), 1,
                                   std::clamp<int64_t>(axis / kMinChunk, 1, kMaxChunks));
    r.chunk = ceil_div(axis, r.chunks);
    r.first = grid_geometry(rows * r.chunks, info);
    if (r.chunks > 1) r.second = one_dimension(std::min(rows, kMaxGroups), group_size);
    return r;
  }
  r.groups = true;
  r.chunks = std::clamp<int64_t>(ceil_div(axis, group_size * kItemsPerThread), 1, kMaxChunks);
  r.chunk = ceil_div(axis, r.chunks);
  r.first = one_dimension(std::min(rows * r.chunks, kMaxGroups), group_size);
  if (r.chunks > 1) r.second = one_dimension(std::min(rows, kMaxGroups), group_size);
  return r;
}

} // namespace hassium::gpu
