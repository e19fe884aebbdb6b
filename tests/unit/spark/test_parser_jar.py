"""The parser's jar (``spark/parser_jar``): its Maven project ships with the package, a build is
named by its sources' digest, and a machine that cannot build it is told what is missing."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kafka_health.maven import MARKER
from kafka_health.spark import parser_jar


def test_the_maven_project_is_the_pom_and_the_java_sources_of_the_package() -> None:
    names = [name for name, _file in parser_jar.project_files()]
    assert names[0] == "pom.xml"
    java = [n for n in names if n.endswith(".java")]
    assert "src/main/java/kafkahealth/parse/ParseUdf.java" in java
    assert "src/main/java/kafkahealth/parse/EntryUdf.java" in java
    assert len(names) == len(java) + 1


def test_a_build_is_named_by_the_digest_of_its_sources(tmp_path: Path) -> None:
    jar = parser_jar.parser_jar_path(tmp_path)
    assert jar.name == parser_jar.JAR_NAME
    assert jar.parent == tmp_path / f"parser-{parser_jar.source_digest()}"
    assert parser_jar.source_digest() == parser_jar.source_digest()


def test_a_finished_build_is_used_as_it_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jar = parser_jar.parser_jar_path(tmp_path)
    jar.parent.mkdir(parents=True)
    jar.write_bytes(b"built")
    (jar.parent / MARKER).write_text("done")
    monkeypatch.setattr(shutil, "which", lambda _name: None)  # no Maven needed
    assert parser_jar.ensure_parser_jar(tmp_path) == jar


def test_without_a_compiler_or_maven_the_error_names_what_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parser_jar, "jdk_tool", lambda _name: None)
    monkeypatch.setattr(shutil, "which", lambda _name: None)
    with pytest.raises(parser_jar.ParserJarError) as raised:
        parser_jar.ensure_parser_jar(tmp_path)
    assert "javac" in str(raised.value) and "Maven (mvn)" in str(raised.value)
    assert not parser_jar.parser_jar_path(tmp_path).exists()
