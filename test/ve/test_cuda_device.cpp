// ve/cuda/cuda_device.cpp without a GPU: launch geometry -> cuLaunchKernel's grid and block, the
// memory pool's size classes.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "ve/cuda/cuda_device.h"

using namespace hassium;

TEST_CASE("launch geometry becomes grid and block", "[cuda]") {
  gpu::LaunchGeometry g;
  g.global[0] = 132 * 16 * 256;
  g.local[0] = 256;
  cuda::CudaGrid c = cuda::cuda_grid(g, 1024);
  CHECK(c.grid[0] == 132 * 16);
  CHECK(c.block[0] == 256);
  CHECK((c.grid[1] == 1 && c.grid[2] == 1 && c.block[1] == 1 && c.block[2] == 1));

  gpu::LaunchGeometry g2;
  g2.dims = 2;
  g2.global[0] = 1008;
  g2.global[1] = 784;
  g2.local[0] = g2.local[1] = 16;
  c = cuda::cuda_grid(g2, 1024);
  CHECK((c.grid[0] == 63 && c.grid[1] == 49 && c.block[0] == 16 && c.block[1] == 16));

  gpu::LaunchGeometry g3; // one group of one thread
  c = cuda::cuda_grid(g3, 1024);
  CHECK((c.grid[0] == 1 && c.block[0] == 1));
}

TEST_CASE("launch geometry no CUDA device runs is an internal error", "[cuda]") {
  gpu::LaunchGeometry g;
  g.global[0] = 1000;
  g.local[0] = 256; // not a multiple
  CHECK_THROWS_WITH(cuda::cuda_grid(g, 1024), Catch::Contains("not a multiple of local 256"));
  g.global[0] = 2048;
  g.local[0] = 2048; // more threads than a block holds
  CHECK_THROWS_AS(cuda::cuda_grid(g, 1024), InternalError);
  g.dims = 2;
  g.global[0] = g.local[0] = 32;
  g.global[1] = 65536 * 2;
  g.local[1] = 1; // 131072 groups in y: past 65535
  CHECK_THROWS_WITH(cuda::cuda_grid(g, 1024), Catch::Contains("groups in dimension 1"));
  g.dims = 4;
  CHECK_THROWS_AS(cuda::cuda_grid(g, 1024), InternalError);
}

TEST_CASE("pool size classes waste at most 1/8", "[cuda]") {
  CHECK(cuda::CudaDevice::size_class(0) == 256);
  CHECK(cuda::CudaDevice::size_class(1) == 256);
  CHECK(cuda::CudaDevice::size_class(4096) == 4096);
  CHECK(cuda::CudaDevice::size_class(4097) == 4096 + 512);
  CHECK(cuda::CudaDevice::size_class(size_t(1) << 30) == size_t(1) << 30);
  for (size_t b : {size_t(5000), size_t(123457), size_t(8487352), size_t(3) << 29}) {
    const size_t c = cuda::CudaDevice::size_class(b);
    CHECK(c >= b);
    CHECK(c - b <= b / 8);
    CHECK(cuda::CudaDevice::size_class(c) == c); // a class is its own class
  }
}
