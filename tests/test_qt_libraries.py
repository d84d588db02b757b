"""A system without the libraries Qt's X11 plugin needs: the app says what to install and exits,
instead of Qt aborting with a message that names the wrong package."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from app.window.qt_libraries import XCB_PACKAGES, _x11_plugin, display_problem, missing_libraries


@pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("ldd") is None,
                    reason="needs gcc and ldd to build a library whose dependency is gone")
def test_a_library_whose_dependency_is_gone_is_named_with_what_to_install(tmp_path):
    (tmp_path / "gone.c").write_text("int parley_gone(void) { return 1; }\n")
    (tmp_path / "plugin.c").write_text("int parley_gone(void);\nint parley_plugin(void) { return parley_gone(); }\n")
    build = ["gcc", "-shared", "-fPIC", "-o"]
    subprocess.run([*build, str(tmp_path / "libparleygone.so"), str(tmp_path / "gone.c")], check=True)
    subprocess.run([*build, str(tmp_path / "plugin.so"), str(tmp_path / "plugin.c"), f"-L{tmp_path}",
                    "-lparleygone", f"-Wl,-rpath,{tmp_path}"], check=True)
    assert missing_libraries(tmp_path / "plugin.so") == [] and display_problem(tmp_path / "plugin.so") is None
    (tmp_path / "libparleygone.so").unlink()
    assert missing_libraries(tmp_path / "plugin.so") == ["libparleygone.so"]
    assert display_problem(tmp_path / "plugin.so").endswith("sudo apt install libparleygone.so")
    assert missing_libraries(tmp_path / "no such plugin.so") == []


def test_parley_on_an_x11_display_names_the_missing_packages_or_gets_past_the_check(tmp_path, monkeypatch):
    """On this machine as it is: where Qt's X11 plugin lacks libraries (a bare Debian), ``parley``
    names their packages and exits 2 before Qt aborts; where nothing lacks, the check says nothing."""
    monkeypatch.setenv("DISPLAY", ":97")  # an X11 desktop (no server needed: the check comes first)
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    plugin = _x11_plugin()
    assert (plugin is not None) == sys.platform.startswith("linux")
    missing = missing_libraries(plugin) if plugin is not None else []
    if not missing:
        assert display_problem() is None
        return
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "XDG_STATE_HOME": str(tmp_path / "state")}
    done = subprocess.run([sys.executable, "-m", "app.cli.command"], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2, done.stderr[-2000:]
    assert all(XCB_PACKAGES.get(name, name) in done.stderr for name in missing), done.stderr
    assert "sudo apt install" in done.stderr and "Aborted" not in done.stderr
