"""`python -m hassium script.py`: `import numpy` in the user's code gets hassium.

The rule: an import of `numpy` or `numpy.<sub>` is redirected to hassium when the importing module
is USER CODE, that is
  - the script itself (run as __main__), or
  - a module whose file lies under the script's directory (recursively),
and is not installed code: files under a site-packages/dist-packages directory, under the
Python installation (sys.prefix, sys.base_prefix, sys.exec_prefix) or in hassium's own package
are never user code.
Everything else (third-party libraries, the standard library, hassium itself) imports the real
NumPy, so libraries keep working; hassium arrays passed to them convert through __array__ (and
NumPy functions called on hassium arrays dispatch to hassium through __array_function__).

`numpy` maps to `hassium`, `numpy.random` to `hassium.random`, `numpy.linalg` to `hassium.linalg`,
and any other `numpy.X` to hassium's attribute X: a wrapper that runs numpy.X through NumPy.
`importlib.import_module("numpy")` is not redirected (it bypasses the import statement).
"""

import builtins
import os
import sys

_real_import = builtins.__import__
_user_roots = []
_installed_roots = []


def _norm(path):
    return os.path.normcase(os.path.realpath(path))


def _under(path, root):
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def is_user_code(globals_):
    if not globals_:
        return False
    f = globals_.get("__file__")
    if not f:
        return False
    path = _norm(f)
    parts = path.split(os.sep)
    if "site-packages" in parts or "dist-packages" in parts:
        return False
    if any(_under(path, r) for r in _installed_roots):
        return False
    return any(_under(path, r) for r in _user_roots)


def _resolve(name):
    import hassium

    obj = hassium
    for part in name.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def _import(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and (name == "numpy" or name.startswith("numpy.")) and is_user_code(globals):
        import hassium

        if fromlist:
            return _resolve(name)
        _resolve(name)  # `import numpy.linalg` must find the submodule
        return hassium
    return _real_import(name, globals, locals, fromlist, level)


def install(script_path):
    """Redirects numpy imports for the code under the script's directory."""
    root = _norm(os.path.dirname(os.path.abspath(script_path)))
    _user_roots.append(root)
    _installed_roots.append(_norm(os.path.dirname(os.path.realpath(__file__))))
    _installed_roots.append(_norm(os.path.dirname(os.path.abspath(__file__))))
    for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}:
        p = _norm(p)
        # A script inside the Python installation tree (rare) keeps its own directory as user code.
        if not _under(root, p):
            _installed_roots.append(p)
    builtins.__import__ = _import


def uninstall():
    builtins.__import__ = _real_import
    _user_roots.clear()
    _installed_roots.clear()
