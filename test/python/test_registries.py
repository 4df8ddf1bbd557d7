"""Component names come from the registries of what is built in (core/registry.h): the module
exposes them by id, a configuration naming any other component fails the import with the valid
names, and config.ini's `Valid` line of each component key lists exactly the registry's names."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

from hassium import _hassium

ROOT = pathlib.Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not _hassium.have_stack,
                                reason="no execution stack built: no registries")


def component_keys():
    """(section, key, registry id) of every `component` key of core/config_keys.def."""
    text = (ROOT / "core" / "config_keys.def").read_text()
    return re.findall(r'^HS_CONFIG_KEY\((\w+),\s*(\w+),\s*component,\s*"[^"]*",\s*"([^"]*)"',
                      text, re.M)


def import_in_fresh_process(env_extra, tmp_path):
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path)}
    env.update({k: v for k, v in os.environ.items()
                if k == "LD_PRELOAD" or k.endswith("SAN_OPTIONS")})
    env.update(env_extra)
    code = "import hassium; print(hassium._hassium.registry_names('stack.engine'))"
    return subprocess.run([sys.executable, "-c", code], env=env, text=True, capture_output=True)


def test_registry_names_by_id():
    assert _hassium.registry_names("stack.engine")[0] == "cpu"
    assert _hassium.registry_names("stack.vem")[0] == "node"
    assert _hassium.registry_names("fuser.cache") == ["none", "memory", "disk"]
    assert _hassium.registry_names("cpu.kernel_cache") == ["none", "memory", "disk"]
    assert _hassium.registry_names("cpu.wait_policy") == ["passive", "active"]
    assert _hassium.registry_names("cpu.blas") == ["auto", "linked"]
    assert _hassium.registry_names("cpu.interpreter") == ["none", "first", "always"]
    assert "greedy" in _hassium.registry_names("fuser.algorithm")
    assert "bohrium" in _hassium.registry_names("fuser.cost_model")
    assert "expand_power" in _hassium.registry_names("stack.filters")
    with pytest.raises(ValueError, match=r"no registry 'stack\.gpu' is published in this build; "
                                         r"published: stack\.engine, stack\.vem, .*cpu\.blas, "
                                         r"cpu\.interpreter"):
        _hassium.registry_names("stack.gpu")


def test_every_component_key_has_a_registry():
    keys = component_keys()
    assert len(keys) == 9
    for section, key, registry in keys:
        assert registry == f"{section}.{key}"
        assert _hassium.registry_names(registry), registry


def test_import_rejects_an_engine_not_built_in(tmp_path):
    engines = _hassium.registry_names("stack.engine")
    r = import_in_fresh_process({"HASSIUM_STACK_ENGINE": "gpu"}, tmp_path)
    assert r.returncode != 0
    assert ("unknown [stack] engine 'gpu' (from env HASSIUM_STACK_ENGINE); valid: "
            + ", ".join(engines) in r.stderr), r.stderr


def test_import_rejects_a_vem_not_built_in_from_a_file(tmp_path):
    vems = _hassium.registry_names("stack.vem")
    assert "mesh" not in vems
    ini = tmp_path / "mesh.ini"
    ini.write_text("[stack]\nvem = mesh\n")
    r = import_in_fresh_process({"HASSIUM_CONFIG": str(ini)}, tmp_path)
    assert r.returncode != 0
    assert (f"unknown [stack] vem 'mesh' (from {ini}:2); valid: " + ", ".join(vems)
            in r.stderr), r.stderr


def test_import_rejects_an_unknown_option_value(tmp_path):
    r = import_in_fresh_process({"HASSIUM_CPU_WAIT_POLICY": "spin"}, tmp_path)
    assert r.returncode != 0
    assert ("unknown [cpu] wait_policy 'spin' (from env HASSIUM_CPU_WAIT_POLICY); valid: passive, "
            "active" in r.stderr), r.stderr


# Under test/sanitize.sh (the sanitizer runtime preloaded) the GPU engines are not started: their
# device libraries (PoCL with its own LLVM, the CUDA driver) are not instrumented.
SANITIZED = "san" in os.environ.get("LD_PRELOAD", "")


def test_import_accepts_every_component_built_in(tmp_path):
    for section, key, registry in component_keys():
        for name in _hassium.registry_names(registry):
            if SANITIZED and registry == "stack.engine" and name != "cpu":
                continue
            var = f"HASSIUM_{section.upper()}_{key.upper()}"
            r = import_in_fresh_process({var: name}, tmp_path)
            assert r.returncode == 0, f"{var}={name}: {r.stderr}"
            assert r.stdout.strip() == str(_hassium.registry_names("stack.engine"))


def config_ini_valid_names():
    """(section, key) -> the names of the `# Valid...:` paragraph above the key in config.ini
    (up to its `# Env:` line): the text after its last ':', remarks in parentheses dropped,
    split at commas."""
    out, section, valid, open_paragraph = {}, None, None, False
    for line in (ROOT / "config.ini").read_text().splitlines():
        if m := re.match(r"^\[(\w+)\]", line):
            section, valid = m.group(1), None
        elif line.startswith("# Valid"):
            valid, open_paragraph = line[1:], True
        elif line.startswith("# Env:"):
            open_paragraph = False
        elif line.startswith("#") and open_paragraph:
            valid += " " + line[1:]
        elif "=" in line and not line.startswith("#"):
            if valid is not None:
                text = re.sub(r"\([^)]*\)", "", valid).rsplit(":", 1)[1]
                out[(section, line.split("=")[0].strip())] = [
                    n.strip().rstrip(".").strip() for n in text.split(",")]
            valid, open_paragraph = None, False
    return out


def test_config_ini_lists_the_components_built_in():
    listed = config_ini_valid_names()
    for section, key, registry in component_keys():
        assert listed.get((section, key)) == _hassium.registry_names(registry), (
            f"config.ini [{section}] {key}: {listed.get((section, key))}")
