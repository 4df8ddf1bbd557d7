// Boolean-mask selection on the host: a row-major walk of the mask with x beside it, the last
// axis in a loop of its own; a contiguous mask is read eight elements at a time (a word of
// zeros is skipped, a word of ones copied as one block, a word of at most four selected copies
// just those), elements are copied by their size.
#include "bridge/common/compress.h"

#include <bit>
#include <cstring>

#include "bridge/common/rows.h"
#include "core/dtype.h"
#include "core/error.h"

namespace hassium::frontend {

namespace {

constexpr uint64_t kOnes = 0x0101010101010101ull;

// Per byte of w: 1 when the byte is nonzero, else 0 (a bool's byte may hold any nonzero value).
inline uint64_t nonzero_bytes(uint64_t w) {
  w |= w >> 4; // each byte's bits 0-3 gather its own bits: what moves in from above lands in 4-7
  w |= w >> 2;
  w |= w >> 1;
  return w & kOnes;
}

int64_t count_row(const uint8_t* p, int64_t stride, int64_t n) {
  int64_t count = 0, i = 0;
  if (stride == 1) {
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      count += int64_t((nonzero_bytes(w) * kOnes) >> 56); // the sum of the eight 0/1 bytes
    }
  }
  for (; i < n; ++i) count += p[i * stride] != 0;
  return count;
}

// One row: elements of Size bytes, `xs` elements apart in x, `ms` bytes apart in the mask.
// Branch-free per element: each is written to the next slot, which moves on when selected
// (at `end`, past the last slot, to a scratch element). Returns the next slot.
template <size_t Size>
char* compress_row(const uint8_t* mp, int64_t ms, const char* xp, int64_t xs, int64_t n, char* out,
                   const char* end) {
  char scratch[Size];
  int64_t i = 0;
  if (ms == 1) {
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, mp + i, 8);
      w = nonzero_bytes(w);
      if (w == 0) continue;
      if (w == kOnes && xs == 1) { // eight selected, contiguous: one block
        std::memcpy(out, xp + i * int64_t(Size), 8 * Size);
        out += 8 * Size;
        continue;
      }
      if (((w * kOnes) >> 56) <= 4) { // few selected: read only theirs (a sparse mask's
        do {                          // other elements would double the cache lines read)
          const int64_t j = i + (std::countr_zero(w) >> 3);
          std::memcpy(out, xp + j * xs * int64_t(Size), Size);
          out += Size;
          w &= w - 1; // (one bit a selected byte)
        } while (w);
        continue;
      }
      for (int64_t j = i; j < i + 8; ++j) {
        std::memcpy(out != end ? out : scratch, xp + j * xs * int64_t(Size), Size);
        out += (w & 1) * Size;
        w >>= 8;
      }
    }
  }
  for (; i < n; ++i) {
    std::memcpy(out != end ? out : scratch, xp + i * xs * int64_t(Size), Size);
    out += mp[i * ms] ? Size : 0;
  }
  return out;
}

template <size_t Size>
void compress_rows(const View& x, const View& mask, char* out, const char* end) {
  const auto* mdata = static_cast<const uint8_t*>(mask.base->data);
  const auto* xdata = static_cast<const char*>(x.base->data);
  const size_t nd = mask.shape.size();
  const int64_t n = nd ? mask.shape[nd - 1] : 1;
  const int64_t ms = nd ? mask.stride[nd - 1] : 0, xs = nd ? x.stride[nd - 1] : 0;
  for_each_row(mask, x, [&](int64_t m, int64_t o) {
    out = compress_row<Size>(mdata + m, ms, xdata + o * int64_t(Size), xs, n, out, end);
  });
}

} // namespace

int64_t count_selected(const View& mask) {
  HS_INTERNAL_ASSERT(mask.base->dtype == DType::BOOL)
      << "a mask of " << dtype_name(mask.base->dtype);
  const auto* data = static_cast<const uint8_t*>(mask.base->data);
  const size_t nd = mask.shape.size();
  const int64_t n = nd ? mask.shape[nd - 1] : 1, s = nd ? mask.stride[nd - 1] : 0;
  int64_t count = 0;
  for_each_row(mask, mask, [&](int64_t m, int64_t) { count += count_row(data + m, s, n); });
  return count;
}

void compress(const View& x, const View& mask, void* out, int64_t count) {
  HS_INTERNAL_ASSERT(x.shape == mask.shape) << "compress of views of different shapes";
  char* o = static_cast<char*>(out);
  const char* end = o + count * dtype_size(x.base->dtype);
  switch (dtype_size(x.base->dtype)) {
  case 1:
    return compress_rows<1>(x, mask, o, end);
  case 2:
    return compress_rows<2>(x, mask, o, end);
  case 4:
    return compress_rows<4>(x, mask, o, end);
  case 8:
    return compress_rows<8>(x, mask, o, end);
  case 16:
    return compress_rows<16>(x, mask, o, end);
  }
  HS_INTERNAL_ASSERT(false) << "an element of " << dtype_size(x.base->dtype) << " bytes";
}

} // namespace hassium::frontend
