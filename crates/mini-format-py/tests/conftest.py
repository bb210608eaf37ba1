"""Shared fixtures: where the upstream conformance suite is.

The suite is read from ``$MINI_CONFORMANCE`` or ``../shared/conformance``
relative to the repository root; it is never copied into the project.  A
missing suite fails the run (it is not skipped).
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List

import pytest

REPO = Path(__file__).resolve().parents[3]


def conformance_dir() -> Path:
    env = os.environ.get("MINI_CONFORMANCE")
    d = Path(env) if env else REPO.parent / "shared" / "conformance"
    if not (d / "cases").is_dir():
        raise RuntimeError(
            f"the upstream conformance suite is not at {d} (set MINI_CONFORMANCE=/path/to/conformance)")
    return d


def load_cases() -> List[Dict[str, Any]]:
    cases = []
    for f in sorted((conformance_dir() / "cases").glob("*.json")):
        for case in json.loads(f.read_text(encoding="utf-8"))["cases"]:
            case["_file"] = f.name
            cases.append(case)
    return cases


def family_fixtures() -> List[Path]:
    return sorted((conformance_dir() / "forks").glob("*/fixtures/*.mini"))


@pytest.fixture(scope="session")
def forks_dir() -> Path:
    return conformance_dir() / "forks"


RESULTS: Dict[str, int] = {"passed": 0, "failed": 0}


def pytest_runtest_logreport(report: Any) -> None:
    if report.when == "call" and "test_conformance_case" in report.nodeid:
        RESULTS["passed" if report.passed else "failed"] += 1


def pytest_terminal_summary(terminalreporter: Any) -> None:
    total = RESULTS["passed"] + RESULTS["failed"]
    if total:
        terminalreporter.write_line(
            f"upstream conformance through the Python API: {RESULTS['passed']} of {total} cases "
            f"passed ({RESULTS['failed']} failing)")
