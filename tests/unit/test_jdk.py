"""Where the project finds the JDK's programs: JAVA_HOME's, the PATH's, beside the PATH's java."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_health.dev.devcluster import gc_pause, process_control
from kafka_health.dev.devcluster.errors import DevClusterError
from kafka_health.jdk import jdk_tool


def fake_jdk(root: Path, *tools: str) -> Path:
    """A JDK's ``bin`` folder under ``root`` holding executable ``tools``."""
    bin_dir = root / "bin"
    bin_dir.mkdir(parents=True)
    for tool in tools:
        program = bin_dir / tool
        program.write_text("#!/bin/sh\nexit 0\n")
        program.chmod(0o755)
    return bin_dir


@pytest.fixture
def no_jdk(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No JAVA_HOME and a PATH holding only an empty folder."""
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(empty))
    return empty


def test_java_home_comes_before_the_path(
    no_jdk: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = fake_jdk(tmp_path / "home", "java", "jcmd")
    on_path = fake_jdk(tmp_path / "path-jdk", "java", "jcmd")
    monkeypatch.setenv("JAVA_HOME", str(home.parent))
    monkeypatch.setenv("PATH", str(on_path))

    assert jdk_tool("jcmd") == str(home / "jcmd")
    assert jdk_tool("java") == str(home / "java")


def test_a_tool_missing_from_java_home_is_taken_from_the_path(
    no_jdk: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = fake_jdk(tmp_path / "jre", "java")  # a JRE: no jcmd
    on_path = fake_jdk(tmp_path / "path-jdk", "jcmd")
    monkeypatch.setenv("JAVA_HOME", str(home.parent))
    monkeypatch.setenv("PATH", str(on_path))

    assert jdk_tool("jcmd") == str(on_path / "jcmd")


def test_a_tool_off_the_path_is_found_beside_the_real_java(
    no_jdk: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jdk = fake_jdk(tmp_path / "jdk", "java", "jfr")
    links = tmp_path / "links"  # as /usr/bin holds only java's link
    links.mkdir()
    (links / "java").symlink_to(jdk / "java")
    monkeypatch.setenv("PATH", str(links))

    assert jdk_tool("jfr") == str(jdk / "jfr")
    assert jdk_tool("java") == str(links / "java")


def test_no_jdk_finds_nothing_and_a_file_that_cannot_run_is_no_tool(
    no_jdk: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert jdk_tool("java") is None
    home = fake_jdk(tmp_path / "home")
    (home / "jcmd").write_text("not a program")  # not executable
    monkeypatch.setenv("JAVA_HOME", str(home.parent))

    assert jdk_tool("jcmd") is None


def test_without_a_jdk_the_dev_cluster_and_the_gc_pause_say_what_is_missing(no_jdk: Path) -> None:
    with pytest.raises(DevClusterError, match=r"no java found .*JDK 17"):
        process_control.java_executable()
    with pytest.raises(gc_pause.GcPauseError, match="jcmd"):
        gc_pause._jcmd()


def test_this_machine_has_the_jdk_the_project_runs() -> None:
    for tool in ("java", "jcmd", "jfr"):
        found = jdk_tool(tool)
        assert found is not None and Path(found).name == tool
