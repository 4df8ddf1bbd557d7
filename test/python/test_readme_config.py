"""README.md's configuration table names exactly the keys of core/config_keys.def, the one list
the runtime reads (config.ini is checked against the same list by test/core/test_config.cpp), and
for each key that names a component exactly the names of that component's registry: what this
build has, never a component that is not built in."""

import pathlib
import re

import pytest

from hassium import _hassium

ROOT = pathlib.Path(__file__).resolve().parents[2]


def def_entries():
    """(section, key, type, valid) of every HS_CONFIG_KEY line, in order."""
    text = (ROOT / "core" / "config_keys.def").read_text()
    return re.findall(r'^HS_CONFIG_KEY\((\w+),\s*(\w+),\s*(\w+),\s*"[^"]*",\s*"([^"]*)"', text, re.M)


def keys_in_def():
    keys = {}
    for section, key, _type, _valid in def_entries():
        keys.setdefault(section, set()).add(key)
    return keys


def readme_rows():
    rows = {}
    for line in (ROOT / "README.md").read_text().splitlines():
        m = re.match(r"^\| `\[(\w+)\]` \| (.*) \|$", line)
        if m:
            rows[m.group(1)] = m.group(2)
    return rows


def keys_in_readme():
    # The key names are the backquoted words outside parentheses (which hold choices).
    return {section: set(re.findall(r"`(\w+)`", re.sub(r"\([^)]*\)", "", row)))
            for section, row in readme_rows().items()}


def test_readme_lists_every_config_key_and_no_other():
    in_def, in_readme = keys_in_def(), keys_in_readme()
    assert in_def, "no HS_CONFIG_KEY found in core/config_keys.def"
    assert list(in_readme) == list(in_def), "README sections differ from config_keys.def"
    for section, keys in in_def.items():
        assert in_readme[section] == keys, (
            f"[{section}]: README lacks {sorted(keys - in_readme[section])}, "
            f"names unknown {sorted(in_readme[section] - keys)}")


@pytest.mark.skipif(not _hassium.have_stack, reason="no execution stack built: no registries")
def test_readme_lists_the_components_built_in():
    rows = readme_rows()
    components = [(s, k, v) for s, k, t, v in def_entries() if t == "component"]
    assert len(components) >= 8
    for section, key, registry in components:
        # `key` (a, b, c) or `key` (a, b: what they do ...): the names before any ':' or ';'.
        m = re.search(r"`" + key + r"` \(([^):;]*)", rows[section])
        assert m, f"README's [{section}] row gives no names for `{key}`"
        listed = [name.strip() for name in m.group(1).split(",")]
        assert listed == _hassium.registry_names(registry), f"[{section}] {key}"
    for section, key, registry in [(s, k, v) for s, k, t, v in def_entries()
                                   if t == "component_list"]:
        assert _hassium.registry_names(registry), f"[{section}] {key}: an empty registry"

