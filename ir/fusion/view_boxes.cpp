// View boxes: box_of, the row length of a base's views, the sweep axis, the disjointness sweep.
#include "ir/fusion/view_boxes.h"

#include <algorithm>
#include <unordered_map>

namespace hassium {

Box box_of(const View& v, int64_t row) {
  const int64_t lo = v.min_index(), hi = v.max_index();
  Box flat{lo / row, hi / row, 0, row - 1};
  if (row <= 1 || v.offset < 0) return flat;
  int64_t rmin = 0, rmax = 0, cmin = 0, cmax = 0;
  for (size_t k = 0; k < v.shape.size(); ++k) {
    if (v.shape[k] <= 1) continue;
    const int64_t ext = v.stride[k] * (v.shape[k] - 1);
    if (v.stride[k] % row == 0)
      (ext > 0 ? rmax : rmin) += ext / row;
    else
      (ext > 0 ? cmax : cmin) += ext;
  }
  const int64_t r0 = v.offset / row, c0 = v.offset % row;
  if (c0 + cmin < 0 || c0 + cmax >= row) return flat;
  return {r0 + rmin, r0 + rmax, c0 + cmin, c0 + cmax};
}

int64_t row_length(const std::vector<const View*>& views) {
  std::unordered_map<int64_t, uint32_t> count;
  for (const View* view : views)
    for (size_t k = 0; k < view->shape.size(); ++k)
      if (view->shape[k] > 1 && (view->stride[k] > 1 || view->stride[k] < -1))
        ++count[view->stride[k] < 0 ? -view->stride[k] : view->stride[k]];
  int64_t best = 1;
  uint32_t most = 0;
  for (auto [stride, n] : count)
    if (n > most || (n == most && stride > best)) best = stride, most = n;
  return best;
}

int sweep_axis(const std::vector<Box>& boxes) {
  // Sum over the boxes of their extent along each axis over that axis's whole range.
  double density[2];
  for (int axis = 0; axis < 2; ++axis) {
    int64_t lo = boxes[0].lo(axis), hi = boxes[0].hi(axis);
    double covered = 0;
    for (const Box& b : boxes) {
      lo = std::min(lo, b.lo(axis));
      hi = std::max(hi, b.hi(axis));
      covered += double(b.hi(axis) - b.lo(axis) + 1);
    }
    density[axis] = covered / double(hi - lo + 1);
  }
  return density[1] < density[0] ? 1 : 0;
}

bool boxes_disjoint(const std::vector<const View*>& views, size_t budget) {
  if (views.size() < 2) return true;
  const int64_t row = row_length(views);
  std::vector<Box> boxes;
  boxes.reserve(views.size());
  for (const View* v : views) boxes.push_back(box_of(*v, row));
  const int axis = sweep_axis(boxes);
  std::sort(boxes.begin(), boxes.end(),
            [axis](const Box& a, const Box& b) { return a.lo(axis) < b.lo(axis); });
  size_t work = 0;
  for (size_t i = 0; i < boxes.size(); ++i)
    for (size_t j = i + 1; j < boxes.size() && boxes[j].lo(axis) <= boxes[i].hi(axis); ++j) {
      if (boxes[i].meets(boxes[j]) || ++work > budget) return false;
    }
  return true;
}

} // namespace hassium
