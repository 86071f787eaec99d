"""`overjoin check` over the programs of tests/corpus/programs/ (ours, in the style of published KDA
and s-Server programs; its README names the program that taught each construct) and examples/: it
accepts every one, as `overjoin server` does (tests/server/test_kda_programs.py runs them there), and
refuses the statements the server refuses, with the code the server gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from overjoin import validate
from overjoin.cli import main

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = sorted((ROOT / "tests" / "corpus" / "programs").glob("*.sql")) + sorted((ROOT / "examples").rglob("*.sql"))


def test_the_programs_are_there() -> None:
    names = {p.name for p in PROGRAMS}
    assert {"kda_join_inner_current_row.sql", "sserver_schema_and_stopped_pump.sql", "app.sql"} <= names
    assert len(PROGRAMS) >= 10


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_overjoin_check_accepts_every_program(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(path)]) == 0, capsys.readouterr().out


@pytest.mark.parametrize(
    ("sql", "code", "column"),
    [
        ('ALTER PUMP "Test".* PAUSE', "OJ001", 21),
        ("SET SCHEMA 'a b'", "OJ001", 12),
        ('CREATE OR REPLACE SCHEMA "Test" EXTRA', "OJ001", 33),
        (
            'CREATE PUMP "P" AS INSERT INTO "S" (\n\t"a",\n\t"b"\n) SELECT STREAM a FROM s '
            "JOIN t OVER (RANGE INTERVAL '1' MONTH PRECEDING) ON s.k = t.k",
            "OJ101",
            58,  # MONTH, on the fourth line
        ),
    ],
)
def test_overjoin_check_refuses_what_the_server_refuses(
    sql: str, code: str, column: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    f = tmp_path / "bad.sql"
    f.write_text(sql)
    assert main(["check", str(f)]) != 0
    assert f"error[{code}]" in capsys.readouterr().out
    errors = [d for d in validate(sql) if d.severity == "error"]
    assert (errors[0].code, errors[0].column) == (code, column), errors[0].render()
