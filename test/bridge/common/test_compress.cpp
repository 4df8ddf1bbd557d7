// frontend::count_selected / compress against an element-by-element reference: random views
// (strides of either sign, 1 to 4 dims), masks of every density and bool bytes other than 1,
// every element size.
#include <cstring>
#include <random>
#include <vector>

#include <catch2/catch.hpp>

#include "bridge/common/compress.h"
#include "core/base.h"
#include "core/dtype.h"

using namespace hassium;

namespace {

// memcmp of n bytes; an empty selection's vector has no data pointer to pass.
bool same_bytes(const void* a, const void* b, size_t n) {
  return n == 0 || std::memcmp(a, b, n) == 0;
}

// A base of n elements with memory, bytes 0..255 repeating (distinct neighbours).
BasePtr filled_base(DType t, int64_t n, std::vector<char>& memory) {
  BasePtr b = make_base("x", t, n);
  memory.resize(size_t(n * dtype_size(t)));
  for (size_t i = 0; i < memory.size(); ++i) memory[i] = char(i * 7 + 3);
  b->data = memory.data();
  return b;
}

// A random view of shape `shape` inside a base big enough for it: each axis's stride a random
// multiple of the inner extent, reversed at random.
View random_view(const BasePtr& base, const Dims& shape, std::mt19937& rng) {
  View v;
  v.base = base;
  v.shape = shape;
  v.stride.resize(shape.size());
  int64_t span = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    const int64_t step = span * int64_t(1 + rng() % 2);
    v.stride[d] = step;
    span = step * shape[d];
  }
  v.offset = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    if (rng() % 3 == 0) { // reversed axis
      v.offset += v.stride[d] * (shape[d] - 1);
      v.stride[d] = -v.stride[d];
    }
  return v;
}

int64_t offset_of(const View& v, int64_t flat) {
  int64_t off = v.offset;
  for (size_t d = v.shape.size(); d-- > 0;) {
    off += (flat % v.shape[d]) * v.stride[d];
    flat /= v.shape[d];
  }
  return off;
}

} // namespace

TEST_CASE("compress matches an element-by-element selection") {
  std::mt19937 rng(12345);
  const DType types[] = {DType::BOOL, DType::INT16, DType::FLOAT32, DType::INT64,
                         DType::COMPLEX128};
  for (int trial = 0; trial < 400; ++trial) {
    const DType t = types[trial % 5];
    const int item = dtype_size(t);
    Dims shape;
    const int nd = 1 + int(rng() % 4);
    for (int d = 0; d < nd; ++d) shape.push_back(int64_t(rng() % (d == nd - 1 ? 41 : 5)));
    int64_t size = 1;
    for (int64_t e : shape) size *= e;
    std::vector<char> xmem, mmem;
    BasePtr xb = filled_base(t, 16 * std::max<int64_t>(size, 1), xmem);
    BasePtr mb = make_base("m", DType::BOOL, 16 * std::max<int64_t>(size, 1));
    mmem.assign(size_t(mb->nelem), 0);
    const int density = int(rng() % 5); // 0: none, 4: all
    for (auto& c : mmem)
      c = char(density == 4 || int(rng() % 4) < density ? 1 + rng() % 3 : 0); // 1..3: true
    mb->data = mmem.data();
    const View x = random_view(xb, shape, rng), m = random_view(mb, shape, rng);

    std::vector<char> want;
    for (int64_t i = 0; i < size; ++i)
      if (mmem[size_t(offset_of(m, i))]) {
        const char* p = xmem.data() + offset_of(x, i) * item;
        want.insert(want.end(), p, p + item);
      }
    const int64_t count = frontend::count_selected(m);
    REQUIRE(count * item == int64_t(want.size()));
    // The output exactly as large as the count, a guard byte pattern after it.
    std::vector<char> got(want.size() + 64, char(0x5a));
    frontend::compress(x, m, got.data(), count);
    CHECK(same_bytes(got.data(), want.data(), want.size()));
    for (size_t i = want.size(); i < got.size(); ++i) REQUIRE(got[i] == char(0x5a));
  }
}

TEST_CASE("long contiguous masks: runs of words, none, all, sparse words") {
  for (int64_t n : {1, 7, 8, 9, 64, 1000, 4099}) {
    std::vector<char> xmem, mmem(static_cast<size_t>(n));
    BasePtr xb = filled_base(DType::FLOAT64, n, xmem);
    BasePtr mb = make_base("m", DType::BOOL, n);
    mb->data = mmem.data();
    for (int pattern = 0; pattern < 6; ++pattern) {
      // (4, 5: words of one to four selected, read element by element)
      for (int64_t i = 0; i < n; ++i)
        mmem[size_t(i)] = char(pattern == 0   ? 0
                               : pattern == 1 ? 1
                               : pattern == 2 ? (i / 13) % 2
                               : pattern == 3 ? (i % 8 != 7)
                               : pattern == 4 ? 2 * (i % 5 == 0)
                                              : (i % 8 == 0 || i % 8 == 3 || i % 8 == 7));
      const View x = View::whole(xb), m = View::whole(mb);
      std::vector<double> want;
      for (int64_t i = 0; i < n; ++i)
        if (mmem[size_t(i)]) want.push_back(reinterpret_cast<const double*>(xmem.data())[i]);
      const int64_t count = frontend::count_selected(m);
      REQUIRE(count == int64_t(want.size()));
      std::vector<double> got(want.size() + 1, -1.0);
      frontend::compress(x, m, got.data(), count);
      CHECK(same_bytes(got.data(), want.data(), want.size() * sizeof(double)));
      CHECK(got.back() == -1.0);
    }
  }
}
