// Row gather on the host: a row-major walk of the index view, each index read in its own dtype,
// each row copied by its element size (a contiguous row as one block).
#include "bridge/common/gather.h"

#include <cstring>
#include <limits>

#include "bridge/common/rows.h"
#include "core/dtype.h"
#include "core/error.h"

namespace hassium::frontend {

namespace {

// The row an index names, or -1 outside [-n, n).
template <class T> int64_t row_of(T raw, int64_t n) {
  if constexpr (std::numeric_limits<T>::is_signed) {
    const int64_t j = raw < 0 ? int64_t(raw) + n : int64_t(raw);
    return j >= 0 && j < n ? j : -1;
  } else {
    return uint64_t(raw) < uint64_t(n) ? int64_t(raw) : -1;
  }
}

// The extent and stride of a view's last axis (1 and 0 for a 0-d view).
void last_axis(const View& v, int64_t& extent, int64_t& stride) {
  const size_t nd = v.shape.size();
  extent = nd ? v.shape[nd - 1] : 1;
  stride = nd ? v.stride[nd - 1] : 0;
}

template <class T> bool gather_typed(const View& x, const View& idx, char* out) {
  const auto* indices = static_cast<const T*>(idx.base->data);
  const auto* xdata = static_cast<const char*>(x.base->data);
  const int64_t n = x.shape[0], size = dtype_size(x.base->dtype);
  // A row of x: x.shape[1:] and its strides, from the row's first element.
  View row_view;
  row_view.base = x.base;
  row_view.shape = Dims(x.shape.begin() + 1, x.shape.end());
  row_view.stride = Dims(x.stride.begin() + 1, x.stride.end());
  int64_t row = 1;
  bool contiguous = true;
  for (size_t d = row_view.shape.size(); d-- > 0; row *= row_view.shape[d])
    contiguous = contiguous && (row_view.shape[d] == 1 || row_view.stride[d] == row);
  int64_t idx_extent, idx_stride, row_extent, row_stride;
  last_axis(idx, idx_extent, idx_stride);
  last_axis(row_view, row_extent, row_stride);
  bool ok = true;
  for_each_row(idx, idx, [&](int64_t first, int64_t) {
    for (int64_t i = 0; ok && i < idx_extent; ++i) {
      const int64_t j = row_of(indices[first + i * idx_stride], n);
      if (j < 0) {
        ok = false;
        return;
      }
      const char* src = xdata + (x.offset + j * x.stride[0]) * size;
      if (contiguous) {
        std::memcpy(out, src, size_t(row * size));
        out += row * size;
        continue;
      }
      for_each_row(row_view, row_view, [&](int64_t e, int64_t) {
        for (int64_t k = 0; k < row_extent; ++k) {
          std::memcpy(out, src + (e + k * row_stride) * size, size_t(size));
          out += size;
        }
      });
    }
  });
  return ok;
}

} // namespace

bool gather_rows(const View& x, const View& idx, void* out) {
  HS_INTERNAL_ASSERT(x.ndim() >= 1) << "a gather from a 0-d view";
  char* o = static_cast<char*>(out);
  switch (idx.base->dtype) {
  case DType::INT8:
    return gather_typed<int8_t>(x, idx, o);
  case DType::INT16:
    return gather_typed<int16_t>(x, idx, o);
  case DType::INT32:
    return gather_typed<int32_t>(x, idx, o);
  case DType::INT64:
    return gather_typed<int64_t>(x, idx, o);
  case DType::UINT8:
    return gather_typed<uint8_t>(x, idx, o);
  case DType::UINT16:
    return gather_typed<uint16_t>(x, idx, o);
  case DType::UINT32:
    return gather_typed<uint32_t>(x, idx, o);
  case DType::UINT64:
    return gather_typed<uint64_t>(x, idx, o);
  default:
    break;
  }
  HS_INTERNAL_ASSERT(false) << "indices of " << dtype_name(idx.base->dtype);
  return false;
}

} // namespace hassium::frontend
