// A C++ API program for cluster:cxx_main: leaves a file `main_ran_<rank>` in argv[1] and prints
// a line before its first array operation, then prints a stencil's and reductions' results.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <hassium/hassium.h>

int main(int argc, char** argv) {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (argc > 1) {
    const std::string path = std::string(argv[1]) + "/main_ran_" + (rank ? rank : "alone");
    if (FILE* f = std::fopen(path.c_str(), "w")) std::fclose(f);
  }
  std::printf("main runs (before the first array operation)\n");
  std::fflush(stdout);

  using hassium::_;
  using hassium::slice;
  const int64_t n = 300;
  auto grid = hassium::zeros<double>({n, n});
  grid(0, _) = 1.0;
  grid += hassium::arange<double>(0.0, double(n * n), 1.0).reshape({n, n}) * 1e-6;
  for (int step = 0; step < 5; ++step)
    grid(slice(1, -1), slice(1, -1)) =
        0.25 * (grid(slice(_, -2), slice(1, -1)) + grid(slice(2, _), slice(1, -1)) +
                grid(slice(1, -1), slice(_, -2)) + grid(slice(1, -1), slice(2, _)));
  std::printf("sum %.17g\n", hassium::sum(grid).item());
  std::printf("max %.17g\n", hassium::max(grid).item());
  std::printf("sum axis 0 [7] %.17g\n", double(hassium::sum(grid, 0)(7)));
  std::printf("element %.17g\n", double(grid(n / 2, n / 3)));
  return 0;
}
