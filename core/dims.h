// Dims: the shape and stride vectors of views (inline for up to 4 dimensions).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <stdexcept>

namespace hassium {

// A vector of int64_t with room for 4 elements inline, so recording allocates little. Copies and
// moves of up to 4 elements are one fixed 32-byte copy: every View copy (recording, filters,
// plans) copies two of these, and a generic small vector's range copy (with a library memcpy of
// a few words) cost more than the rest of the View.
class Dims {
public:
  using value_type = int64_t;
  using size_type = size_t;
  using difference_type = ptrdiff_t;
  using reference = int64_t&;
  using const_reference = const int64_t&;
  using pointer = int64_t*;
  using const_pointer = const int64_t*;
  using iterator = int64_t*;
  using const_iterator = const int64_t*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using const_reverse_iterator = std::reverse_iterator<const_iterator>;

  Dims() = default;
  explicit Dims(size_t n) { assign(n, 0); }
  Dims(size_t n, int64_t v) { assign(n, v); }
  Dims(std::initializer_list<int64_t> l) { assign(l.begin(), l.end()); }
  template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
  Dims(It first, It last) {
    assign(first, last);
  }
  Dims(const Dims& o) { copy_from(o); }
  Dims(Dims&& o) noexcept { take(o); }
  Dims& operator=(const Dims& o) {
    if (this != &o) copy_from(o);
    return *this;
  }
  Dims& operator=(Dims&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  Dims& operator=(std::initializer_list<int64_t> l) {
    assign(l.begin(), l.end());
    return *this;
  }
  ~Dims() { release(); }

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return cap_; }
  int64_t* data() { return data_; }
  const int64_t* data() const { return data_; }
  iterator begin() { return data_; }
  iterator end() { return data_ + size_; }
  const_iterator begin() const { return data_; }
  const_iterator end() const { return data_ + size_; }
  const_iterator cbegin() const { return data_; }
  const_iterator cend() const { return data_ + size_; }
  reverse_iterator rbegin() { return reverse_iterator(end()); }
  reverse_iterator rend() { return reverse_iterator(begin()); }
  const_reverse_iterator rbegin() const { return const_reverse_iterator(end()); }
  const_reverse_iterator rend() const { return const_reverse_iterator(begin()); }
  int64_t& operator[](size_t i) { return data_[i]; }
  const int64_t& operator[](size_t i) const { return data_[i]; }
  int64_t& at(size_t i) {
    if (i >= size_) throw std::out_of_range("Dims::at");
    return data_[i];
  }
  const int64_t& at(size_t i) const {
    if (i >= size_) throw std::out_of_range("Dims::at");
    return data_[i];
  }
  int64_t& front() { return data_[0]; }
  const int64_t& front() const { return data_[0]; }
  int64_t& back() { return data_[size_ - 1]; }
  const int64_t& back() const { return data_[size_ - 1]; }

  void reserve(size_t n) {
    if (n > cap_) grow(n);
  }
  void clear() { size_ = 0; }
  void push_back(int64_t v) {
    if (size_ == cap_) grow(2 * cap_);
    data_[size_++] = v;
  }
  int64_t& emplace_back(int64_t v) {
    push_back(v);
    return back();
  }
  void pop_back() { --size_; }
  void resize(size_t n) { resize(n, 0); }
  void resize(size_t n, int64_t v) {
    reserve(n);
    for (size_t i = size_; i < n; ++i) data_[i] = v;
    size_ = uint32_t(n);
  }
  void assign(size_t n, int64_t v) {
    reserve(n);
    std::fill_n(data_, n, v);
    size_ = uint32_t(n);
  }
  template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
  void assign(It first, It last) {
    const size_t n = size_t(std::distance(first, last));
    reserve(n);
    std::copy(first, last, data_);
    size_ = uint32_t(n);
  }
  void assign(std::initializer_list<int64_t> l) { assign(l.begin(), l.end()); }
  iterator insert(const_iterator pos, int64_t v) { return insert(pos, size_t(1), v); }
  iterator insert(const_iterator pos, size_t n, int64_t v) {
    const size_t at = size_t(pos - data_);
    reserve(size_ + n);
    std::copy_backward(data_ + at, data_ + size_, data_ + size_ + n);
    std::fill_n(data_ + at, n, v);
    size_ += uint32_t(n);
    return data_ + at;
  }
  template <typename It, typename = typename std::iterator_traits<It>::iterator_category>
  iterator insert(const_iterator pos, It first, It last) {
    const size_t at = size_t(pos - data_);
    const size_t n = size_t(std::distance(first, last));
    // (A range from this vector itself stays valid across the move: copied first.)
    Dims items(first, last);
    reserve(size_ + n);
    std::copy_backward(data_ + at, data_ + size_, data_ + size_ + n);
    std::copy(items.begin(), items.end(), data_ + at);
    size_ += uint32_t(n);
    return data_ + at;
  }
  iterator insert(const_iterator pos, std::initializer_list<int64_t> l) {
    return insert(pos, l.begin(), l.end());
  }
  iterator erase(const_iterator pos) { return erase(pos, pos + 1); }
  iterator erase(const_iterator first, const_iterator last) {
    int64_t* f = data_ + (first - data_);
    int64_t* l = data_ + (last - data_);
    std::copy(l, end(), f);
    size_ -= uint32_t(l - f);
    return f;
  }
  void swap(Dims& o) noexcept {
    Dims t(std::move(o));
    o = std::move(*this);
    *this = std::move(t);
  }

  friend bool operator==(const Dims& a, const Dims& b) {
    // (A loop: std::equal becomes a library memcmp call for a few words.)
    if (a.size_ != b.size_) return false;
    for (uint32_t i = 0; i < a.size_; ++i)
      if (a.data_[i] != b.data_[i]) return false;
    return true;
  }
  friend bool operator!=(const Dims& a, const Dims& b) { return !(a == b); }
  friend bool operator<(const Dims& a, const Dims& b) {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
  }

private:
  static constexpr uint32_t kInline = 4;
  bool is_inline() const { return data_ == inline_; }
  void release() {
    if (!is_inline()) std::free(data_);
    data_ = inline_;
    cap_ = kInline;
    size_ = 0;
  }
  void grow(size_t n) {
    n = std::max<size_t>(n, 2 * size_t(kInline));
    auto* p = static_cast<int64_t*>(std::malloc(n * sizeof(int64_t)));
    if (!p) throw std::bad_alloc();
    std::memcpy(p, data_, size_ * sizeof(int64_t));
    if (!is_inline()) std::free(data_);
    data_ = p;
    cap_ = uint32_t(n);
  }
  void copy_from(const Dims& o) {
    if (o.size_ <= kInline) {
      // Both hold room for kInline elements: the words past size mean nothing.
      std::memcpy(data_, o.data_, kInline * sizeof(int64_t));
    } else {
      reserve(o.size_);
      std::memcpy(data_, o.data_, o.size_ * sizeof(int64_t));
    }
    size_ = o.size_;
  }
  // Takes o's elements (its heap block, or a copy of its inline ones); o is left empty.
  void take(Dims& o) {
    if (o.is_inline()) {
      std::memcpy(inline_, o.inline_, sizeof inline_);
    } else {
      data_ = o.data_;
      cap_ = o.cap_;
      o.data_ = o.inline_;
      o.cap_ = kInline;
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  int64_t* data_ = inline_;
  uint32_t size_ = 0;
  uint32_t cap_ = kInline;
  int64_t inline_[kInline] = {}; // (zeroed: the fixed-size copies read all four words)
};

} // namespace hassium
