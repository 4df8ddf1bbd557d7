// Row gather on the host: a row-major walk of the index view, each index read in its own dtype,
// each row copied by its element size (a contiguous row as one block).
#include "bridge/common/gather.h"

#include <cstring>
#include <limits>

#include "core/dtype.h"
#include "core/error.h"

namespace hassium::frontend {

namespace {

// Calls fn(offset) for each element of a view's shape and strides from `offset`, in row-major
// order (nothing for an empty shape's zero extents; once for 0-d).
template <class Fn>
void for_each_element(const Dims& shape, const Dims& stride, int64_t offset, Fn&& fn) {
  const size_t nd = shape.size();
  for (int64_t e : shape)
    if (e == 0) return;
  if (nd == 0) return fn(offset);
  Dims index(nd, 0);
  int64_t o = offset;
  for (;;) {
    for (int64_t i = 0, s = stride[nd - 1]; i < shape[nd - 1]; ++i) fn(o + i * s);
    size_t d = nd - 1;
    for (;;) { // the next row: the odometer over the outer axes
      if (d == 0) return;
      --d;
      o += stride[d];
      if (++index[d] < shape[d]) break;
      o -= stride[d] * shape[d];
      index[d] = 0;
    }
  }
}

// The row an index names, or -1 outside [-n, n).
template <class T> int64_t row_of(T raw, int64_t n) {
  if constexpr (std::numeric_limits<T>::is_signed) {
    const int64_t j = raw < 0 ? int64_t(raw) + n : int64_t(raw);
    return j >= 0 && j < n ? j : -1;
  } else {
    return uint64_t(raw) < uint64_t(n) ? int64_t(raw) : -1;
  }
}

template <class T> bool gather_typed(const View& x, const View& idx, char* out) {
  const auto* indices = static_cast<const T*>(idx.base->data);
  const auto* xdata = static_cast<const char*>(x.base->data);
  const int64_t n = x.shape[0], size = dtype_size(x.base->dtype);
  // A row: x.shape[1:] and its strides, from the row's first element.
  const Dims row_shape(x.shape.begin() + 1, x.shape.end());
  const Dims row_stride(x.stride.begin() + 1, x.stride.end());
  int64_t row = 1;
  bool contiguous = true;
  for (size_t d = row_shape.size(); d-- > 0; row *= row_shape[d])
    contiguous = contiguous && (row_shape[d] == 1 || row_stride[d] == row);
  bool ok = true;
  for_each_element(idx.shape, idx.stride, idx.offset, [&](int64_t at) {
    const int64_t j = ok ? row_of(indices[at], n) : -1;
    if (j < 0) {
      ok = false;
      return;
    }
    const char* src = xdata + (x.offset + j * x.stride[0]) * size;
    if (contiguous) {
      std::memcpy(out, src, size_t(row * size));
      out += row * size;
      return;
    }
    for_each_element(row_shape, row_stride, 0, [&](int64_t e) {
      std::memcpy(out, src + e * size, size_t(size));
      out += size;
    });
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
