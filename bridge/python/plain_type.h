// CPython heap types whose instances hold one C++ value in place (hassium.ndarray, hassium.ufunc),
// and pybind11 casters and method binding for them: no pybind11 instance layout anywhere.
#pragma once

#include <cstddef>
#include <new>
#include <utility>
#include <vector>

#include <pybind11/pybind11.h>
#include <structmember.h>

namespace hassium::python {

namespace py = pybind11;

// What every instance starts with (standard layout: the offsets CPython is told are exact).
struct PlainHeader {
  PyObject ob_base;
  PyObject* weakrefs; // the weak-reference list
  PyObject* dict;     // the instance __dict__, for types made with one
};

template <typename T> struct PlainObject : PlainHeader { T value; };

// One such type per C++ value type T. Instances are made by make() (or by the type's tp_new,
// which calls make() for its subtype); the value is constructed with the object and destroyed in
// the deallocator. Subclasses made in Python share the layout, so value() works for them too.
template <typename T> class PlainType {
public:
  using Object = PlainObject<T>;

  // Makes the type `qualified_name` ("package.module.Name"): the given slots plus the
  // deallocator, the weak-reference list, and a __dict__ when `instance_dict`. Subclassable,
  // not garbage-collected (a value refers to no Python object that could refer back to it).
  static PyTypeObject* create(const char* qualified_name, const char* doc,
                              std::vector<PyType_Slot> slots, bool instance_dict) {
    static PyMemberDef members[] = {
        {"__weaklistoffset__", T_PYSSIZET, offsetof(PlainHeader, weakrefs), READONLY, nullptr},
        {"__dictoffset__", T_PYSSIZET, offsetof(PlainHeader, dict), READONLY, nullptr},
        {nullptr, 0, 0, 0, nullptr}};
    if (!instance_dict) members[1] = members[2];
    slots.push_back({Py_tp_dealloc, reinterpret_cast<void*>(&dealloc)});
    slots.push_back({Py_tp_members, members});
    slots.push_back({Py_tp_doc, const_cast<char*>(doc)});
    slots.push_back({0, nullptr});
    PyType_Spec spec{qualified_name, int(sizeof(Object)), 0,
                     Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, slots.data()};
    PyObject* t = PyType_FromSpec(&spec);
    if (!t) throw py::error_already_set();
    type_ = reinterpret_cast<PyTypeObject*>(t); // kept for the process
    return type_;
  }

  static PyTypeObject* type() { return type_; }
  static bool check(PyObject* o) { return Py_TYPE(o) == type_ || PyObject_TypeCheck(o, type_); }
  // The value of an instance (of the type or a subclass).
  static T& value(PyObject* o) {
    return static_cast<Object*>(reinterpret_cast<PlainHeader*>(o))->value;
  }

  // A new instance of `t` (the type, or a subclass of it) holding v.
  static py::object make(T&& v, PyTypeObject* t = nullptr) {
    PyObject* o = allocate(t);
    new (&value(o)) T(std::move(v));
    return py::reinterpret_steal<py::object>(o);
  }
  static py::object make(const T& v, PyTypeObject* t = nullptr) {
    PyObject* o = allocate(t);
    new (&value(o)) T(v);
    return py::reinterpret_steal<py::object>(o);
  }

private:
  static PyObject* allocate(PyTypeObject* t) {
    if (!t) t = type_;
    PyObject* o = t->tp_alloc(t, 0); // zero-filled: no weak references, no __dict__ yet
    if (!o) throw py::error_already_set();
    return o;
  }
  static void dealloc(PyObject* self) {
    PyTypeObject* t = Py_TYPE(self);
    auto* h = reinterpret_cast<PlainHeader*>(self);
    if (h->weakrefs) PyObject_ClearWeakRefs(self);
    if (t->tp_dictoffset == offsetof(PlainHeader, dict)) Py_CLEAR(h->dict);
    {
      py::error_scope scope; // the value's destructor may record and flush: keep a pending error
      value(self).~T();
    }
    t->tp_free(self);
    Py_DECREF(t); // instances of heap types hold their type (subtype_dealloc leaves it to us)
  }

  static inline PyTypeObject* type_ = nullptr;
};

// pybind11's caster for T (specialize pybind11::detail::type_caster<T> as a subclass of this,
// with a `name`): loads a reference to the value inside an instance, casts a value to a new
// instance.
template <typename T> struct PlainCaster {
  T* ptr = nullptr;
  bool load(py::handle src, bool) {
    if (!src || !PlainType<T>::check(src.ptr())) return false;
    ptr = &PlainType<T>::value(src.ptr());
    return true;
  }
  static py::handle cast(const T& v, py::return_value_policy, py::handle) {
    return PlainType<T>::make(v).release();
  }
  static py::handle cast(T&& v, py::return_value_policy, py::handle) {
    return PlainType<T>::make(std::move(v)).release();
  }
  static py::handle cast(const T* v, py::return_value_policy p, py::handle parent) {
    if (!v) return py::none().release();
    return cast(*v, p, parent);
  }
  operator T*() { return ptr; }
  operator T&() {
    if (!ptr) throw py::reference_cast_error();
    return *ptr;
  }
  template <typename U> using cast_op_type = py::detail::cast_op_type<U>;
};

// Binds methods and read-only properties on a plain type the way py::class_ does on its own.
class TypeBinder {
public:
  explicit TypeBinder(PyTypeObject* type)
      : type_(py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(type))) {}
  const py::object& type() const { return type_; }

  template <typename F, typename... Extra>
  TypeBinder& def(const char* name, F&& f, const Extra&... extra) {
    py::cpp_function cf(std::forward<F>(f), py::name(name), py::is_method(type_),
                        py::sibling(py::getattr(type_, name, py::none())), extra...);
    py::setattr(type_, name, cf);
    return *this;
  }
  template <typename F> TypeBinder& def_property_readonly(const char* name, F&& f) {
    py::cpp_function get(std::forward<F>(f), py::is_method(type_));
    py::setattr(type_, name, property(get, py::none(), py::none()));
    return *this;
  }
  // A property with a setter and a deleter (callables taking self, (self, value), self).
  TypeBinder& def_property(const char* name, const py::object& get, const py::object& set,
                           const py::object& del, const char* doc) {
    py::setattr(type_, name, property(get, set, del, py::str(doc)));
    return *this;
  }

private:
  template <typename... A> static py::object property(A&&... a) {
    return py::reinterpret_borrow<py::object>(reinterpret_cast<PyObject*>(&PyProperty_Type))(
        std::forward<A>(a)...);
  }
  py::object type_;
};

} // namespace hassium::python
