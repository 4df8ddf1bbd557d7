// Row-major iteration over the elements of a strided view held in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace hassium::detail {

// Walks a view's elements in row-major order, as an odometer over its indices. `V` is T or
// const T. Iterators of one traversal compare by position.
template <typename V> class strided_iterator {
public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = std::remove_const_t<V>;
  using difference_type = std::ptrdiff_t;
  using pointer = V*;
  using reference = V&;

  strided_iterator() = default;
  // `first` points at the view's element 0; `position` is the row-major start (0 or size).
  strided_iterator(V* first, std::vector<int64_t> shape, std::vector<int64_t> stride,
                   int64_t position)
      : first_(first), shape_(std::move(shape)), stride_(std::move(stride)),
        index_(shape_.size(), 0), position_(position) {}

  reference operator*() const { return first_[offset_]; }
  pointer operator->() const { return first_ + offset_; }
  strided_iterator& operator++() {
    ++position_;
    for (size_t k = shape_.size(); k-- > 0;) {
      offset_ += stride_[k];
      if (++index_[k] < shape_[k]) return *this;
      offset_ -= stride_[k] * shape_[k];
      index_[k] = 0;
    }
    return *this;
  }
  strided_iterator operator++(int) {
    strided_iterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const strided_iterator& o) const { return position_ == o.position_; }

private:
  V* first_ = nullptr;
  std::vector<int64_t> shape_, stride_, index_;
  int64_t offset_ = 0;
  int64_t position_ = 0;
};

} // namespace hassium::detail
