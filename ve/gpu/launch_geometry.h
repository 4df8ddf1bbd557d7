// Launch geometry of the generated kernels (ve/gpu/kernel_source.h): how many groups of how many
// work items run each entry, and how a reduction's axis is cut into chunks. Depends only on the
// sizes and the device's group size limit, so results do not depend on timing or load.
#pragma once

#include <cstdint>

#include "ve/gpu/gpu_device.h"

namespace hassium::gpu {

// Most groups a grid-stride launch starts (each item then loops over the rest).
inline constexpr int64_t kMaxGroups = int64_t(1) << 16;
// Work items per group of the grid-stride entries (hs_elements, hs_rows, hs_combine), at most.
inline constexpr int64_t kDefaultGroup = 256;

// A grid-stride launch over `items` independent items (hs_elements, hs_rows, hs_combine):
// groups of min(kDefaultGroup, the device's limit) items, fewer for tiny counts (a power of two
// at least `items`); at most kMaxGroups groups; one item when `sequential`.
LaunchGeometry grid_geometry(int64_t items, const DeviceInfo& info, bool sequential = false);

// How a reduction of `rows` output elements over an axis of `axis` elements runs.
struct ReductionLaunch {
  bool groups = false;   // hs_groups; else hs_rows
  int64_t chunks = 1;    // chunks per row (> 1: partials, then hs_combine)
  int64_t chunk = 0;     // axis elements per chunk
  LaunchGeometry first;  // hs_rows or hs_groups
  LaunchGeometry second; // hs_combine (when chunks > 1)
};

// One chunk per row (hs_rows) when the rows alone fill the device or the axis is short. Else,
// when the axis is the innermost loop (`axis_innermost`: a group's items read neighbours),
// groups of `group_size` items per (row, chunk), chunks of at least 16 elements per item, at
// most 1024 per row; when it is an outer loop, hs_rows over (row, chunk) pairs, neighbouring
// items on neighbouring rows, enough chunks for 65536 items (at least 64 elements each, at most
// 1024 chunks).
ReductionLaunch reduction_geometry(int64_t rows, int64_t axis, int group_size,
                                   const DeviceInfo& info, bool axis_innermost = true);

} // namespace hassium::gpu
