// Indices of hassium::array views: integers, slices (start, stop, step), `_` (a whole axis),
// newaxis.
//
//   a(slice(1, -1), _)          rows 1..n-2, every column      (NumPy a[1:-1, :])
//   a(slice(_, _, -1))          reversed                       (a[::-1])
//   a(2, slice(0, _, 2))        row 2, even columns (1-D)       (a[2, ::2])
//   a(newaxis, _)               a 1 x n view                   (a[np.newaxis, :])
// Negative start/stop count from the end. Unlike NumPy, which clamps slice bounds silently,
// a start or stop outside [-n, n] is a hassium::error naming the axis, its size and the bound.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>

namespace hassium {

// "Leave it out": as a slice bound, slice(_, 5) is NumPy's [:5]; as an index, the whole axis
// (NumPy's `:`).
struct placeholder_t {};
inline constexpr placeholder_t _{};

// An optional slice bound: an integer or `_`.
class bound {
public:
  constexpr bound(placeholder_t) {}
  template <std::integral I> constexpr bound(I v) : value_(int64_t(v)) {}
  constexpr const std::optional<int64_t>& value() const { return value_; }

private:
  std::optional<int64_t> value_;
};

struct slice {
  constexpr slice(bound start = _, bound stop = _, int64_t step = 1)
      : start(start.value()), stop(stop.value()), step(step) {}
  std::optional<int64_t> start;
  std::optional<int64_t> stop;
  int64_t step;
};

struct newaxis_t {};
inline constexpr newaxis_t newaxis{};

// One entry of an index list, for views built at run time: a.view({slice(1, _), 0, _, newaxis}).
class index {
public:
  enum class kind : uint8_t { integer, range, all, newaxis };
  template <std::integral I> constexpr index(I i) : kind_(kind::integer), i_(int64_t(i)) {}
  constexpr index(slice s) : kind_(kind::range), s_(s) {}
  constexpr index(placeholder_t) : kind_(kind::all) {}
  constexpr index(newaxis_t) : kind_(kind::newaxis) {}

  constexpr kind what() const { return kind_; }
  constexpr int64_t integer() const { return i_; }
  constexpr const slice& range() const { return s_; }

private:
  kind kind_;
  int64_t i_ = 0;
  slice s_{};
};

} // namespace hassium
