"""JUnit files as their consumers read them: valid against the xunit2 schema pytest validates
its own reports with (xmlschema), and read by junitparser with each question's points."""

from __future__ import annotations

from pathlib import Path

import pytest
import xmlschema
from class_documents import make_doc
from junitparser import Failure, JUnitXml

from graders.exports.junit import junit_xml
from graders.results import ResultsDocument

XSD = Path(__file__).resolve().parent.parent / "data" / "schemas" / "junit-10.xsd"


@pytest.fixture(scope="module")
def schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(str(XSD))


@pytest.fixture
def doc(tmp_path: Path) -> ResultsDocument:
    return make_doc(tmp_path)


def test_autograde_junit_is_valid_xunit2(schema: xmlschema.XMLSchema, doc: ResultsDocument) -> None:
    schema.validate(junit_xml(doc))


def test_the_legacy_family_is_what_the_schema_refuses(
    schema: xmlschema.XMLSchema, doc: ResultsDocument
) -> None:
    # The reason for the xunit2 layout: properties inside a test case are not xunit2.
    assert not schema.is_valid(junit_xml(doc, "legacy"))


def test_junitparser_reads_every_question_with_its_points(
    doc: ResultsDocument, tmp_path: Path
) -> None:
    path = tmp_path / "junit.xml"
    path.write_text(junit_xml(doc), encoding="utf-8")
    suites = {suite.name: suite for suite in JUnitXml.fromfile(str(path))}
    ada = suites["ada"]
    points = {p.name: p.value for p in ada.properties()}
    cases = {case.name: case for case in ada}
    assert list(cases) == ["ex/a", "ex/b", "code/check"]
    for name, case in cases.items():
        assert case.time == 0.0
        assert f"points: {float(points[f'points:{name}']):g}/" in case.system_out
    assert [type(r) for r in cases["ex/b"].result] == [Failure]
    assert cases["code/check"].result[0].type == "timeout"
    assert cases["ex/a"].is_passed and not cases["ex/b"].is_passed
    assert (ada.tests, ada.failures, ada.errors) == (3, 1, 1)
