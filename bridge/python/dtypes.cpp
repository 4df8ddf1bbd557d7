// Dtypes between NumPy and hassium: dtype objects, NumPy's loop resolution cached per ufunc.
#include "bridge/python/dtypes.h"

#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

namespace hassium::python {

namespace {

// Module-lifetime references, deliberately never released (no Python calls at process exit).
PyObject* numpy_module() {
  static PyObject* np = py::module_::import("numpy").release().ptr();
  return np;
}

const std::array<PyObject*, kNumDTypes>& dtype_objects() {
  static std::array<PyObject*, kNumDTypes> objs = [] {
    std::array<PyObject*, kNumDTypes> a{};
    for (int t = 0; t < kNumDTypes; ++t)
      a[size_t(t)] = py::dtype(std::string(dtype_name(DType(t)))).release().ptr();
    return a;
  }();
  return objs;
}

// The Python object resolve_dtypes takes for a code: a dtype, or int/float/complex (weak).
py::object code_object(TypeCode c) {
  if (c < kNumDTypes) return py::reinterpret_borrow<py::object>(numpy_dtype(DType(c)));
  auto builtins = py::module_::import("builtins");
  if (c == kWeakInt) return builtins.attr("int");
  if (c == kWeakFloat) return builtins.attr("float");
  return builtins.attr("complex");
}

// A cache entry: not yet asked, asked and NumPy has a usable loop, or asked and it has none.
struct Entry {
  enum : uint8_t { unknown, ok, none } state = unknown;
  Loop loop;
};

// Key: ufunc id, codes, forced output dtype (kNumCodes = none), reduction flag.
using Key = std::tuple<int, TypeCode, TypeCode, TypeCode, bool>;

std::map<Key, Entry>& cache() {
  static auto* c = new std::map<Key, Entry>;
  return *c;
}

// A flat table for the hot path (no forced dtype, not a reduction): [ufunc][code0][code1].
constexpr int kMaxUfuncs = 128;
Entry& fast_entry(int id, TypeCode c0, TypeCode c1) {
  static auto* table = new Entry[kMaxUfuncs][kNumCodes][kNumCodes + 1];
  return table[id][c0][c1];
}

// Fills an entry by asking NumPy. Any exception from NumPy means "no loop" (the caller falls
// back to NumPy, which raises its own error for the user).
Entry ask_numpy(const char* name, int nin, int nout, std::span<const TypeCode> codes,
                std::optional<DType> forced, bool reduction) {
  Entry e;
  e.state = Entry::none;
  try {
    py::object uf = py::reinterpret_borrow<py::object>(numpy_module()).attr(name);
    py::tuple dts(nin + nout);
    if (reduction) {
      // resolve_dtypes(reduction=True) wants (out, in, out): the accumulator is the output.
      dts[0] = forced ? py::reinterpret_borrow<py::object>(numpy_dtype(*forced)) : py::none();
      dts[1] = code_object(codes[0]);
      dts[2] = py::none();
    } else {
      for (int i = 0; i < nin; ++i) dts[size_t(i)] = code_object(codes[size_t(i)]);
      for (int i = 0; i < nout; ++i) dts[size_t(nin + i)] = py::none();
    }
    py::object res;
    if (reduction) {
      res = uf.attr("resolve_dtypes")(dts, py::arg("reduction") = true);
    } else if (forced) {
      py::tuple sig(nin + nout);
      for (int i = 0; i < nin + nout; ++i) sig[size_t(i)] = py::none();
      for (int i = 0; i < nout; ++i)
        sig[size_t(nin + i)] = py::reinterpret_borrow<py::object>(numpy_dtype(*forced));
      res = uf.attr("resolve_dtypes")(dts, py::arg("signature") = sig);
    } else {
      res = uf.attr("resolve_dtypes")(dts);
    }
    auto tup = res.cast<py::tuple>();
    int nres = int(tup.size());
    std::vector<DType> got;
    for (int i = 0; i < nres; ++i) {
      auto t = dtype_of_numpy(tup[size_t(i)]);
      if (!t) return e; // float16 and friends: hassium does not hold them
      got.push_back(*t);
    }
    int nin_res = reduction ? 2 : nin;
    for (int i = 0; i < nin_res && i < 2; ++i) e.loop.in[size_t(i)] = got[size_t(i)];
    if (reduction) {
      e.loop.in[0] = got[1]; // the input is cast to the loop type
      e.loop.out[0] = got[0];
    } else {
      for (int i = 0; i < nout && i < 2; ++i) e.loop.out[size_t(i)] = got[size_t(nin + i)];
    }
    e.state = Entry::ok;
  } catch (py::error_already_set&) {
    e.state = Entry::none;
  }
  return e;
}

} // namespace

py::handle numpy_dtype(DType t) {
  return dtype_objects()[size_t(t)];
}

std::optional<DType> dtype_of_numpy(py::handle descr) {
  auto& objs = dtype_objects();
  for (int t = 0; t < kNumDTypes; ++t)
    if (descr.ptr() == objs[size_t(t)]) return DType(t); // the canonical instances
  if (!py::isinstance<py::dtype>(descr)) return std::nullopt;
  auto dt = py::reinterpret_borrow<py::dtype>(descr);
  char order = dt.byteorder();
  if (order != '=' && order != '|') {
    // '<' on a little-endian machine is native too.
    if (!(order == '<' &&
          py::module_::import("sys").attr("byteorder").cast<std::string>() == "little"))
      return std::nullopt;
  }
  if (dt.has_fields()) return std::nullopt;
  int size = int(dt.itemsize());
  switch (dt.kind()) {
  case 'b':
    return DType::BOOL;
  case 'i':
    switch (size) {
    case 1:
      return DType::INT8;
    case 2:
      return DType::INT16;
    case 4:
      return DType::INT32;
    case 8:
      return DType::INT64;
    }
    break;
  case 'u':
    switch (size) {
    case 1:
      return DType::UINT8;
    case 2:
      return DType::UINT16;
    case 4:
      return DType::UINT32;
    case 8:
      return DType::UINT64;
    }
    break;
  case 'f':
    if (size == 4) return DType::FLOAT32;
    if (size == 8) return DType::FLOAT64;
    break;
  case 'c':
    if (size == 8) return DType::COMPLEX64;
    if (size == 16) return DType::COMPLEX128;
    break;
  }
  return std::nullopt;
}

std::optional<DType> dtype_from_arg(py::handle arg) {
  auto& objs = dtype_objects();
  for (int t = 0; t < kNumDTypes; ++t)
    if (arg.ptr() == objs[size_t(t)]) return DType(t);
  // Raises TypeError ("data type 'x' not understood") for things that are no dtype.
  py::dtype dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(arg));
  return dtype_of_numpy(dt);
}

std::optional<Loop> resolve_loop(int ufunc_id, const char* ufunc_name, int nin, int nout,
                                 std::span<const TypeCode> codes, std::optional<DType> forced) {
  TypeCode c0 = codes[0], c1 = nin > 1 ? codes[1] : TypeCode(kNumCodes);
  Entry* e;
  Entry slow;
  if (!forced && ufunc_id < kMaxUfuncs) {
    e = &fast_entry(ufunc_id, c0, c1);
  } else {
    e = &cache()[Key{ufunc_id, c0, c1, forced ? TypeCode(*forced) : TypeCode(kNumCodes), false}];
  }
  if (e->state == Entry::unknown) *e = ask_numpy(ufunc_name, nin, nout, codes, forced, false);
  if (e->state != Entry::ok) return std::nullopt;
  return e->loop;
}

std::optional<Loop> resolve_reduce_loop(int ufunc_id, const char* ufunc_name, DType in,
                                        std::optional<DType> forced) {
  Entry& e = cache()[Key{ufunc_id, code_of(in), TypeCode(kNumCodes),
                         forced ? TypeCode(*forced) : TypeCode(kNumCodes), true}];
  TypeCode codes[1] = {code_of(in)};
  if (e.state == Entry::unknown) e = ask_numpy(ufunc_name, 2, 1, codes, forced, true);
  if (e.state != Entry::ok) return std::nullopt;
  return e.loop;
}

std::optional<Casting> parse_casting(std::string_view s) {
  if (s == "no") return Casting::no;
  if (s == "equiv") return Casting::equiv;
  if (s == "safe") return Casting::safe;
  if (s == "same_kind") return Casting::same_kind;
  if (s == "unsafe") return Casting::unsafe;
  return std::nullopt;
}

bool can_cast(DType from, DType to, Casting casting) {
  static int8_t table[kNumDTypes][kNumDTypes][5];
  static bool init = false;
  if (!init) {
    std::memset(table, -1, sizeof table);
    init = true;
  }
  int8_t& v = table[size_t(from)][size_t(to)][size_t(casting)];
  if (v < 0) {
    static const char* names[] = {"no", "equiv", "safe", "same_kind", "unsafe"};
    py::object np = py::reinterpret_borrow<py::object>(numpy_module());
    v = np.attr("can_cast")(numpy_dtype(from), numpy_dtype(to), names[size_t(casting)]).cast<bool>()
            ? 1
            : 0;
  }
  return v == 1;
}

std::string dtype_repr(DType t) {
  return "dtype('" + std::string(dtype_name(t)) + "')";
}

} // namespace hassium::python
