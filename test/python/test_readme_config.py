"""README.md's configuration table names exactly the keys of core/config_keys.def, the one list
the runtime reads (config.ini is checked against the same list by test/core/test_config.cpp)."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def keys_in_def():
    text = (ROOT / "core" / "config_keys.def").read_text()
    keys = {}
    for section, key in re.findall(r"^HS_CONFIG_KEY\((\w+),\s*(\w+),", text, re.M):
        keys.setdefault(section, set()).add(key)
    return keys


def keys_in_readme():
    keys = {}
    for line in (ROOT / "README.md").read_text().splitlines():
        m = re.match(r"^\| `\[(\w+)\]` \| (.*) \|$", line)
        if m:
            # The key names are the backquoted words outside parentheses (which hold choices).
            outside = re.sub(r"\([^)]*\)", "", m.group(2))
            keys[m.group(1)] = set(re.findall(r"`(\w+)`", outside))
    return keys


def test_readme_lists_every_config_key_and_no_other():
    in_def, in_readme = keys_in_def(), keys_in_readme()
    assert in_def, "no HS_CONFIG_KEY found in core/config_keys.def"
    assert list(in_readme) == list(in_def), "README sections differ from config_keys.def"
    for section, keys in in_def.items():
        assert in_readme[section] == keys, (
            f"[{section}]: README lacks {sorted(keys - in_readme[section])}, "
            f"names unknown {sorted(in_readme[section] - keys)}")
