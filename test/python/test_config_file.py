"""Which config.ini the Python module uses: $HASSIUM_CONFIG first, else the first installed copy
on Config::search_path (next to libhassium.so when pip installed it), else the source tree's."""

import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def config_file_in_fresh_process(env_extra, tmp_path):
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path)}
    # test/sanitize.sh's runtime and options reach the child (nothing hassium reads; conftest.py
    # has turned the children's exit-time leak check off).
    env.update({k: v for k, v in os.environ.items()
                if k == "LD_PRELOAD" or k.endswith("SAN_OPTIONS")})
    env.update(env_extra)
    code = "import hassium; print(hassium._hassium.config_file())"
    return subprocess.run([sys.executable, "-c", code], env=env, check=True, text=True,
                          capture_output=True).stdout.strip()


def test_explicit_config_wins(tmp_path):
    ini = tmp_path / "mine.ini"
    ini.write_text("[python]\nflush_threshold = 77\n")
    assert config_file_in_fresh_process({"HASSIUM_CONFIG": str(ini)}, tmp_path) == str(ini)


def test_user_config_before_installed(tmp_path):
    user = tmp_path / ".config" / "hassium" / "config.ini"
    user.parent.mkdir(parents=True)
    user.write_text("[cpu]\nthreads = 1\n")
    assert config_file_in_fresh_process({}, tmp_path) == str(user)


def test_installed_copy_next_to_the_library(tmp_path):
    import hassium
    lib = pathlib.Path(hassium._hassium.__file__).resolve().parent
    used = pathlib.Path(config_file_in_fresh_process({}, tmp_path))
    next_to_stack = [p for p in (lib / "config.ini",) if p.is_file()]
    if next_to_stack:  # pip installed: config.ini sits in site-packages/hassium
        assert used == next_to_stack[0]
    else:  # a build tree: the source tree's copy
        assert used == ROOT / "config.ini"
