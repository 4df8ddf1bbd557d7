// hassium::array<T>: a lazy n-d array whose operations record bytecode into the Runtime.
//
// Semantics are NumPy's, with C++ spelling:
//   - An array is a handle to a view of a buffer (a base). Copying an array copies the handle
//     (both name the same data, as `b = a` in Python); `a.copy()` copies the data.
//   - Assigning to a named array rebinds it (`a = a + 1`). Assigning to a temporary view writes
//     through it: `a(slice(1, _)) = b;` or `a(_, 0) = 0.0;` (NumPy `a[1:] = b`). A named view
//     is written with `v.assign(b)` or `v.fill(x)`; compound assignment (`v += b`) always writes
//     in place. A source that overlaps the target is copied first, so `a(slice(1, _)) =
//     a(slice(_, -1))` shifts as in NumPy.
//   - Operations are recorded, not run. They run at a flush: when data is read (data(),
//     item(), operator() element access, iteration, printing, to_vector()), at hassium::flush(),
//     or when [cxx] flush_threshold instructions are pending.
//   - Element access a(i, j) returns a reference into the array's memory (after running what is
//     pending). Pointers and references from data()/operator() stay valid while the array
//     lives, and see values as of the last flush; write through them only while no recorded
//     operation on the array is pending.
//   - Type promotion, see hassium/types.h.
#pragma once

#include <concepts>
#include <initializer_list>
#include <ostream>
#include <ranges>
#include <vector>

#include "hassium/detail/node.h"
#include "hassium/error.h"
#include "hassium/iterator.h"
#include "hassium/types.h"

namespace hassium {

template <element T> class array;

namespace detail {
template <typename X> struct is_array : std::false_type {};
template <typename T> struct is_array<array<T>> : std::true_type {};

// A C++ scalar as a bytecode constant of its own kind (cast to the compute dtype later).
template <scalar_like S> Scalar scalar_of(S v) {
  if constexpr (std::is_same_v<S, bool>)
    return Scalar::of_bool(v);
  else if constexpr (std::is_integral_v<S> && std::is_signed_v<S>)
    return Scalar::of_int(int64_t(v));
  else if constexpr (std::is_integral_v<S>)
    return Scalar::of_uint(uint64_t(v));
  else if constexpr (std::is_floating_point_v<S>)
    return Scalar::of_float(double(v));
  else
    return Scalar::of_complex(std::complex<double>(v));
}
// The exact element value as a constant of dtype T.
template <element T> Scalar typed_scalar(T v) {
  return scalar_of(v).cast(dtype_of<T>);
}
} // namespace detail

// An array operand or a scalar one.
template <typename X>
concept array_like = detail::is_array<std::remove_cvref_t<X>>::value;
template <typename X>
concept operand_like = array_like<X> || scalar_like<std::remove_cvref_t<X>>;

// The dtype NumPy gives the inputs of a binary operation (array-array or weak scalar).
template <typename A, typename B> constexpr DType promoted_dtype() {
  using L = std::remove_cvref_t<A>;
  using R = std::remove_cvref_t<B>;
  if constexpr (array_like<L> && array_like<R>)
    return promote(dtype_of<typename L::value_type>, dtype_of<typename R::value_type>);
  else if constexpr (array_like<L>)
    return promote_weak(dtype_of<typename L::value_type>, kind_of<R>());
  else
    return promote_weak(dtype_of<typename R::value_type>, kind_of<L>());
}

namespace detail {
// An operand for the type-erased calls: arrays as views, scalars as weak constants.
template <operand_like X> operand operand_of(const X& x) {
  if constexpr (array_like<X>)
    return operand(x.node());
  else
    return operand(scalar_of(x));
}
} // namespace detail

template <element T> class array {
public:
  using value_type = T;
  using iterator = detail::strided_iterator<T>;
  using const_iterator = detail::strided_iterator<const T>;

  // An empty 1-D array (shape (0,)).
  array() : n_(detail::make(dtype_of<T>, {0})) {}
  // A 1-D array of these values: array<double>{1.0, 2.5, 4.0}.
  array(std::initializer_list<T> values) : array(shape_type{int64_t(values.size())}, values) {}
  // An array of the given shape holding `values` in row-major order.
  template <std::ranges::input_range R>
  requires std::convertible_to<std::ranges::range_value_t<R>, T> array(const shape_type& shape,
                                                                       const R& values) {
    if constexpr (!std::is_same_v<T, bool> && std::ranges::contiguous_range<R> &&
                  std::ranges::sized_range<R> && std::is_same_v<std::ranges::range_value_t<R>, T>) {
      // Already T in row-major order: copied once, straight into the array.
      n_ = detail::from_memory(dtype_of<T>, shape, std::ranges::data(values),
                               int64_t(std::ranges::size(values)));
    } else {
      std::vector<T> buffer;
      for (auto&& v : values) buffer.push_back(T(v));
      if constexpr (std::is_same_v<T, bool>) {
        std::unique_ptr<bool[]> b(new bool[buffer.size() + 1]);
        for (size_t i = 0; i < buffer.size(); ++i) b[i] = buffer[i];
        n_ = detail::from_memory(DType::BOOL, shape, b.get(), int64_t(buffer.size()));
      } else {
        n_ = detail::from_memory(dtype_of<T>, shape, buffer.data(), int64_t(buffer.size()));
      }
    }
  }
  // Wraps a node of dtype T (the library's own constructor).
  explicit array(detail::node n) : n_(std::move(n)) {
    if (n_.dtype != dtype_of<T>) throw error("hassium::array: node dtype mismatch");
  }

  array(const array&) = default;
  array(array&&) noexcept = default;
  ~array() = default;
  // Rebinding a named array (see the top of this file).
  array& operator=(const array&) & = default;
  array& operator=(array&&) & noexcept = default;
  // Writing through a temporary view: a(slice(1, _)) = b; a(_, 0) = 1.0.
  template <element U> array& operator=(const array<U>& value) && { return assign(value); }
  template <scalar_like S> array& operator=(S value) && { return fill(value); }

  // Writes `value` (broadcast, cast with C++/NumPy unsafe casting) into this view.
  template <element U> array& assign(const array<U>& value) {
    detail::assign(n_, detail::operand(value.node()));
    return *this;
  }
  template <scalar_like S> array& fill(S value) {
    detail::assign(n_, detail::operand(detail::scalar_of(value).cast(dtype_of<T>)));
    return *this;
  }

  // --- shape -----------------------------------------------------------------------------
  const shape_type& shape() const { return n_.shape; }
  int64_t shape(int axis) const { return n_.shape.at(size_t(axis < 0 ? axis + ndim() : axis)); }
  // Strides in elements (NumPy's .strides are in bytes).
  const shape_type& strides() const { return n_.stride; }
  int64_t size() const { return n_.size(); }
  int ndim() const { return n_.ndim(); }
  bool empty() const { return size() == 0; }

  // --- views -----------------------------------------------------------------------------
  // a(i, j): the element (a reference, after running what is pending). a(slice(..), 2, _,
  // newaxis): a view. Integer indices may be negative (from the end).
  template <typename... I>
  requires((std::integral<I> || std::constructible_from<index, I>)&&...) decltype(auto)
  operator()(I... i) {
    if constexpr ((std::integral<I> && ...))
      return element(std::initializer_list<int64_t>{int64_t(i)...}, true);
    else
      return view({index(i)...});
  }
  template <typename... I>
  requires((std::integral<I> || std::constructible_from<index, I>)&&...) auto
  operator()(I... i) const {
    if constexpr ((std::integral<I> && ...))
      return T(element({int64_t(i)...}, false));
    else
      return view({index(i)...});
  }
  array view(std::initializer_list<index> indices) const {
    return array(detail::view(n_, std::span<const index>(indices.begin(), indices.size())));
  }
  array view(const std::vector<index>& indices) const { return array(detail::view(n_, indices)); }
  // Reversed axes; or the axes in the given order.
  array transpose() const { return array(detail::transpose(n_)); }
  array transpose(std::initializer_list<int> axes) const {
    return array(detail::transpose(n_, std::span<const int>(axes.begin(), axes.size())));
  }
  // A view when the data is contiguous, else a copy; one extent may be -1.
  array reshape(const shape_type& shape) const { return array(detail::reshape(n_, shape)); }
  array ravel() const { return reshape({-1}); }
  array flatten() const { return copy().reshape({-1}); }

  // --- copies and casts ------------------------------------------------------------------
  array copy() const { return array(detail::copy(n_)); }
  template <element U> array<U> astype() const { return array<U>(detail::cast(n_, dtype_of<U>)); }

  // --- compound assignment: in place, result cast back to T (NumPy same_kind rule) -------
#define HS_COMPOUND(OP, OPCODE)                                                                    \
  template <operand_like X> array& operator OP(const X& x) {                                       \
    constexpr auto compute = compute_dtype(Opcode::OPCODE, promoted_dtype<array, X>());            \
    static_assert(compute.has_value(), "hassium: " #OP " is not defined for these element types"); \
    static_assert(can_cast_same_kind(result_dtype(Opcode::OPCODE, *compute), dtype_of<T>),         \
                  "hassium: the result of " #OP " cannot be cast back to the array's type "        \
                  "(NumPy's same_kind rule)");                                                     \
    detail::operand ops[] = {detail::operand(n_), detail::operand_of(x)};                          \
    detail::elementwise_into(n_, Opcode::OPCODE, *compute, ops);                                   \
    return *this;                                                                                  \
  }
  HS_COMPOUND(+=, ADD)
  HS_COMPOUND(-=, SUBTRACT)
  HS_COMPOUND(*=, MULTIPLY)
  HS_COMPOUND(/=, DIVIDE)
  HS_COMPOUND(%=, MOD)
  HS_COMPOUND(&=, BITWISE_AND)
  HS_COMPOUND(|=, BITWISE_OR)
  HS_COMPOUND(^=, BITWISE_XOR)
  HS_COMPOUND(<<=, LEFT_SHIFT)
  HS_COMPOUND(>>=, RIGHT_SHIFT)
#undef HS_COMPOUND

  // --- data ------------------------------------------------------------------------------
  // The memory of element 0 of this view (strides() give the layout), after a flush.
  T* data() {
    return static_cast<T*>(detail::sync(n_, true)) + n_.offset;
  }
  const T* data() const {
    return static_cast<const T*>(detail::sync(n_)) + n_.offset;
  }
  // The value of a one-element array.
  T item() const {
    if (size() != 1)
      throw error("item(): the array has " + std::to_string(size()) + " elements, not 1");
    return *begin();
  }
  std::vector<T> to_vector() const {
    return std::vector<T>(begin(), end());
  }
  iterator begin() {
    return iterator(data(), n_.shape, n_.stride, 0);
  }
  iterator end() {
    return iterator(nullptr, {}, {}, size());
  }
  const_iterator begin() const {
    return const_iterator(data(), n_.shape, n_.stride, 0);
  }
  const_iterator end() const {
    return const_iterator(nullptr, {}, {}, size());
  }

  // The type-erased view (for the library's functions).
  const detail::node& node() const {
    return n_;
  }

private:
  T& element(std::initializer_list<int64_t> idx, bool write) const {
    int64_t at = detail::element_index(n_, std::span<const int64_t>(idx.begin(), idx.size()));
    return static_cast<T*>(detail::sync(n_, write))[at];
  }

  detail::node n_;
};

// NumPy-like printing: [[1 2 3]\n [4 5 6]]. Runs what is pending.
template <element T> std::ostream& operator<<(std::ostream& os, const array<T>& a) {
  std::vector<T> values = a.to_vector();
  const shape_type& shape = a.shape();
  auto put = [&](const T& v) {
    if constexpr (std::is_same_v<T, bool>)
      os << (v ? "true" : "false");
    else if constexpr (sizeof(T) == 1)
      os << int(v);
    else
      os << v;
  };
  if (shape.empty()) {
    put(values.at(0));
    return os;
  }
  size_t pos = 0;
  auto rec = [&](auto&& self, size_t axis) -> void {
    os << '[';
    for (int64_t i = 0; i < shape[axis]; ++i) {
      if (i > 0) {
        if (axis + 1 == shape.size())
          os << ' ';
        else
          os << '\n' << std::string(axis + 1, ' ');
      }
      if (axis + 1 == shape.size())
        put(values[pos++]);
      else
        self(self, axis + 1);
    }
    os << ']';
  };
  rec(rec, 0);
  return os;
}

// Runs every recorded operation now (on a GPU engine, until the device has run them; call it
// before a program ends with work it never read, so that none is left queued at exit).
inline void flush() {
  detail::flush();
}

} // namespace hassium
