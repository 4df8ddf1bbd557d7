#!/usr/bin/env bash
# Packs what a GPU machine with another Python (3.12 there, 3.11 here) needs to run
# `python3 -m hassium` and benchmarks/gpu_bench.py, into one folder (default build-device-py/,
# ~10 MB): the stripped libhassium.so and the shared libraries it needs that a bare Ubuntu 24.04
# may lack, the pure-Python files of the hassium package, the sources and headers of the _hassium
# extension (bridge/python, the project headers they include, the pinned pybind11 of .venv, the
# Boost headers they use; NumPy's and Python 3.12's headers only as fallbacks), its compile and
# link flags from build/compile_commands.json and build/build.ninja, config.ini and run.sh
# (test/ve/python_device_run.sh), which compiles the extension there for that machine's Python.
# Reads the build only (runs no ninja). Usage: test/ve/python_device_pack.sh [DIR]
# Env: BUILD (build dir), VENV (for pybind11), PY312_INCLUDE (fallback Python headers; "" = none).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=test/ve/device_common.sh
source "$root/test/ve/device_common.sh"
out=${1:-$root/build-device-py}
build=${BUILD:-$root/build}
venv=${VENV:-$root/.venv}
py312=${PY312_INCLUDE-/root/.pyenv/versions/3.12.1/include/python3.12}
stage=$(mktemp -d /tmp/hassium-pypack.XXXXXX)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/lib" "$stage/python/hassium" "$stage/inc"

# libhassium.so, stripped, under its SONAME, and what it needs beyond libc/libm/libstdc++/
# libgcc_s, libz, libzstd and libtinfo (on every Ubuntu): Open MPI, the OpenCL ICD loader,
# libxxhash, ...; libgomp, which the CPU engine opens at run time (ve/cpu/openmp.cpp).
lib=$(readlink -f "$build/lib/libhassium.so")
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
strip -o "$stage/lib/$soname" "$lib"
ln -s "$soname" "$stage/lib/libhassium.so"
carry_libraries "$stage/lib/$soname" "$stage/lib"
if ldd "$stage/lib/$soname" | grep -q "not found"; then
  echo "libhassium.so has unresolved libraries here:" >&2; ldd "$stage/lib/$soname" >&2; exit 1
fi
cp -L "$(gcc -print-file-name=libgomp.so.1)" "$stage/lib/"
strip --strip-unneeded "$stage"/lib/lib[!h]*.so* 2>/dev/null || true

# The pure-Python package: everything of build/python/hassium but the extension itself.
for f in "$build"/python/hassium/*; do
  case $(basename "$f") in _hassium.*.so|__pycache__) ;; *) cp -r "$f" "$stage/python/hassium/" ;; esac
done

# Sources, headers and flags of the _hassium target (flags.sh, a bash fragment for run.sh).
pybind=$("$venv/bin/python" -c "import pybind11; print(pybind11.get_include())")
numpy_inc=$("$venv/bin/python" -c "import numpy; print(numpy.get_include())")
python3 - "$root" "$build" "$stage" "$pybind" "$numpy_inc" <<'EOF'
import json, os, re, shlex, shutil, subprocess, sys
root, build, stage, pybind, numpy_inc = sys.argv[1:]
SYSTEM = ("/usr/include/c++/", "/usr/include/x86_64-linux-gnu/", "/usr/include/linux/",
          "/usr/include/asm-generic/", "/usr/lib/gcc/")
cmds = [c for c in json.load(open(f"{build}/compile_commands.json"))
        if "/_hassium.dir/" in c.get("output", c["command"])]
if not cmds:
    sys.exit("no _hassium sources in compile_commands.json")
def flags_of(c):
    a = shlex.split(c["command"])
    i = a.index("-o")
    return a[1:i] + [x for x in a[i + 2:] if x not in ("-c", c["file"])]
flags = flags_of(cmds[0])
for c in cmds[1:]:
    if flags_of(c) != flags:
        sys.exit(f"{c['file']}: flags differ from {cmds[0]['file']}")
compiler = shlex.split(cmds[0]["command"])[0]
python_inc = None
deps = set()
for c in cmds:
    a = [compiler] + flags + ["-M", "-MF", "/dev/stdout", "-E", "-o", "/dev/null", c["file"]]
    p = subprocess.run(a, capture_output=True, text=True, cwd=c["directory"], check=True)
    deps.update(p.stdout.replace("\\\n", " ").split()[1:])
# The include options, rewritten to the pack's paths (relative to where run.sh unpacks it).
includes, dropped = [], []
it = iter(flags)
rest = []
for x in it:
    opt, path = None, None
    for o in ("-isystem", "-I"):
        if x == o:
            opt, path = o, next(it)
        elif x.startswith(o) and len(x) > len(o):
            opt, path = o, x[len(o):]
        if opt:
            break
    if not opt:
        rest.append(x)
        continue
    path = os.path.normpath(path)
    if path == os.path.normpath(pybind):
        includes += [opt, "inc/pybind11"]
    elif path == os.path.normpath(numpy_inc):
        includes += [opt, "@NUMPY_INCLUDE@"]
    elif path == root or path.startswith(root + "/"):
        includes += [opt, "src" + path[len(root):]]
    elif os.path.exists(os.path.join(path, "Python.h")):
        python_inc = path
        includes += [opt, "@PYTHON_INCLUDE@"]
    elif any(d.startswith(path + "/") for d in deps):
        sys.exit(f"include dir {path}: headers used from it, and no rule to carry it")
    else:
        dropped += [opt, path]
# Carry the headers: the project's, Boost's (used from /usr/include), pybind11 and NumPy whole.
boost = False
for d in sorted(deps):
    d = os.path.normpath(d)
    if d.startswith((pybind + "/", numpy_inc + "/")) or (python_inc and d.startswith(python_inc + "/")):
        continue
    elif d.startswith(root + "/"):
        dst = f"{stage}/src{d[len(root):]}"
    elif d.startswith("/usr/include/boost/"):
        dst, boost = f"{stage}/inc/boost/{d[len('/usr/include/'):]}", True
    elif d.startswith(SYSTEM) or re.fullmatch(r"/usr/include/[^/]+\.h", d):
        continue
    else:
        sys.exit(f"header {d}: no rule to carry it")
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    shutil.copy2(d, dst)
if boost:  # the config headers are picked per compiler: carry them all
    shutil.copytree("/usr/include/boost/config", f"{stage}/inc/boost/boost/config",
                    dirs_exist_ok=True)
    includes += ["-isystem", "inc/boost"]
shutil.copytree(pybind, f"{stage}/inc/pybind11")
shutil.copytree(numpy_inc, f"{stage}/inc/numpy")
for c in cmds:
    shutil.copy2(c["file"], f"{stage}/src{c['file'][len(root):]}")
# The link line of build.ninja's _hassium target.
ninja = open(f"{build}/build.ninja").read()
m = re.search(r"^build python/hassium/_hassium\.[^:]*: (\S+) .*\n((?:  .*\n)+)", ninja, re.M)
var = dict(re.findall(r"^  (\w+) = ?(.*)$", m.group(2), re.M))
rules = open(f"{build}/CMakeFiles/rules.ninja").read()
rule = re.search(rf"^rule {m.group(1)}\n  command = (.*)$", rules, re.M).group(1)
link_flags = ["-fPIC"] + shlex.split(var.get("LANGUAGE_COMPILE_FLAGS", "")) + \
    shlex.split(var.get("ARCH_FLAGS", "")) + shlex.split(var.get("LINK_FLAGS", "")) + ["-shared"]
link_libs = []
for x in shlex.split(var.get("LINK_PATH", "")) + shlex.split(var.get("LINK_LIBRARIES", "")):
    if x.startswith("-Wl,-rpath,"):
        dropped.append(x)  # run.sh sets its own
    elif "libhassium.so" in x:
        link_libs.append("lib/libhassium.so")
    else:
        link_libs.append(x)
q = lambda xs: " ".join(shlex.quote(x) for x in xs)
# -Werror goes: another compiler version's new warnings must not stop the run there.
dropped += [x for x in rest if x == "-Werror"]
rest = [x for x in rest if x != "-Werror"]
srcs = ["src" + c["file"][len(root):] for c in cmds]
with open(f"{stage}/flags.sh", "w") as f:
    f.write(f"""# The _hassium extension's build, from build/compile_commands.json and build/build.ninja
# (written by test/ve/python_device_pack.sh); paths relative to the unpacked pack. run.sh puts
# the Python and NumPy include dirs of the machine's python for @PYTHON_INCLUDE@/@NUMPY_INCLUDE@.
# compiled here with: {compiler} ({subprocess.run([compiler, '--version'], capture_output=True, text=True).stdout.splitlines()[0]})
SOURCES=({q(srcs)})
CXXFLAGS=({q(rest)})
INCLUDES=({q(includes)})
# the module's link: {rule}
LINK_FLAGS=({q(link_flags)})
LINK_LIBS=({q(link_libs)})
# left out: {q(dropped)}
""")
print(f"  {len(srcs)} sources, {len(deps)} headers seen; flags: {q(rest)}")
print(f"  includes: {q(includes)}; left out: {q(dropped)}")
EOF
if [[ -n $py312 && -f $py312/Python.h ]]; then
  cp -r "$py312" "$stage/inc/python3.12"
  echo "$py312 ($(grep -h '#define PY_VERSION ' "$py312/patchlevel.h" | awk '{print $3}'))" \
    > "$stage/inc/python3.12/CARRIED_FROM"
fi
cp "$root/config.ini" "$stage/config.ini"
{
  echo "packed $(date -u +%FT%TZ) from $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo +dirty)"
  echo "libhassium: $lib ($(date -u -r "$lib" +%FT%TZ))"
  echo "compiler here: $(c++ --version | head -1)"
  echo "pybind11 $("$venv/bin/python" -c 'import pybind11; print(pybind11.__version__)'), numpy here $("$venv/bin/python" -c 'import numpy; print(numpy.__version__)')"
} > "$stage/PACKED"

rm -rf "$out"
mkdir -p "$out"
tar -C "$stage" -cf - . | xz -T2 -6 > "$out/pack.tar.xz"
cp "$root/test/ve/python_device_run.sh" "$out/run.sh"
cp "$root/test/ve/device_common.sh" "$out/"
chmod +x "$out/run.sh"
cp "$stage/flags.sh" "$stage/PACKED" "$out/"
(cd "$stage" && find . -type f -o -type l | sort) > "$out/MANIFEST"
echo "packed $(du -sh "$out" | cut -f1) into $out ($(wc -l < "$out/MANIFEST") files in pack.tar.xz):"
(cd "$stage" && du -sh lib/* | sed 's/^/  /')
echo "  python/hassium: $(ls "$stage/python/hassium" | wc -l) files; src: $(find "$stage/src" -type f | wc -l) files; inc: $(ls "$stage/inc" | tr '\n' ' ')"
