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
  bool groups = false;   // hs_groups (+ hs_combine when chunks > 1); else hs_rows
  int64_t chunks = 1;    // chunks per row
  int64_t chunk = 0;     // axis elements per chunk
  LaunchGeometry first;  // hs_rows or hs_groups
  LaunchGeometry second; // hs_combine (when groups and chunks > 1)
};

// hs_rows when the rows alone fill the device or the axis is short, else groups of
// `group_size` items per (row, chunk), the axis cut into chunks of at least 16 items per work
// item, at most 1024 chunks per row.
ReductionLaunch reduction_geometry(int64_t rows, int64_t axis, int group_size,
                                   const DeviceInfo& info);

} // namespace hassium::gpu
