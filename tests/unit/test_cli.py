"""The overjoin command line, run in-process (and once as `python -m overjoin`)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

from overjoin import cli

PYTHON_DIR = Path(__file__).resolve().parents[2] / "python"
BAD = "SELECT STREAM *\nFROM orders OVER (RANGE INTERVAL '1' MINUTE FOLLOWING) AS o\nJOIN s ON o.k = s.k\n"
GOOD = "SELECT STREAM ROWTIME, o.k FROM s JOIN orders OVER (RANGE INTERVAL '1' HOUR PRECEDING) AS o ON o.k = s.k\n"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = cli.main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    (tmp_path / "bad.sql").write_text(BAD)
    (tmp_path / "good.sql").write_text(GOOD)
    (tmp_path / "schemas.json").write_text(json.dumps({"orders": {"k": "int", "ts": "string"}, "s": {"k": "int"}}))
    return {p.stem: p for p in tmp_path.iterdir()}


class TestCheck:
    def test_good_file_exits_0(self, files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
        status, out, _ = run(["check", str(files["good"])], capsys)
        assert status == 0 and out == ""

    def test_bad_file_is_compiler_style(self, files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
        status, out, _ = run(["check", str(files["good"]), str(files["bad"])], capsys)
        assert status == 1
        lines = out.splitlines()
        assert lines[0] == (f"{files['bad']}:2:45: error[OJ102]: The frame of the join window of o (orders) uses "
                            "FOLLOWING: a window here can only look back in time.")  # fmt: skip
        assert lines[1] == "  FROM orders OVER (RANGE INTERVAL '1' MINUTE FOLLOWING) AS o"
        assert lines[2] == "  " + " " * 44 + "^" + "~" * 8
        assert lines[3].startswith("  hint: Use PRECEDING or CURRENT ROW")
        assert lines[-1] == "1 error(s), 0 warning(s)"

    def test_json_format(self, files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
        status, out, _ = run(["check", "--format", "json", str(files["bad"])], capsys)
        data = json.loads(out)
        assert status == 1 and len(data) == 1
        assert data[0]["path"] == str(files["bad"])
        assert (data[0]["code"], data[0]["line"], data[0]["column"]) == ("OJ102", 2, 45)
        assert data[0]["condition"] == "OVERJOIN_WINDOW_FOLLOWING"

    def test_stdin(self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(BAD))
        status, out, _ = run(["check", "-"], capsys)
        assert status == 1 and out.startswith("<stdin>:2:45: error[OJ102]")

    def test_schemas(self, files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
        status, out, _ = run(["check", "--schemas", str(files["schemas"]), str(files["good"])], capsys)
        assert status == 1 and "error[OJ203]" in out

    def test_bad_schemas_file(self, files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
        status, _, err = run(["check", "--schemas", str(files["bad"]), str(files["good"])], capsys)
        assert status == 2 and "cannot read schemas" in err

    def test_missing_file(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        status, _, err = run(["check", str(tmp_path / "nope.sql")], capsys)
        assert status == 2 and "cannot read" in err

    def test_double_quoted_identifiers(self, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
        path = tmp_path / "dq.sql"
        path.write_text('SELECT STREAM B."ticker" FROM "BIDS" OVER "w" AS B WINDOW "w" AS (ROWS 1 FOLLOWING)')
        status, out, _ = run(["check", "--double-quoted-identifiers", str(path)], capsys)
        assert status == 1 and "error[OJ102]" in out

    def test_help(self, capsys: pytest.CaptureFixture[str]) -> None:
        with pytest.raises(SystemExit) as stop:
            cli.main(["check", "--help"])
        assert stop.value.code == 0
        out = capsys.readouterr().out
        assert "--schemas" in out and "--format" in out and "exit status" in out


class TestOtherCommands:
    def test_explain_sql_text(self, capsys: pytest.CaptureFixture[str]) -> None:
        status, out, _ = run(["explain", GOOD], capsys)
        assert status == 0
        assert "o.rowtime BETWEEN s.rowtime - INTERVAL '3600' SECOND AND s.rowtime + INTERVAL '0' SECOND" in out
        assert "life interval:    [o.rowtime, o.rowtime + 1h]" in out

    def test_explain_file_with_errors(self, files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
        status, out, _ = run(["explain", str(files["bad"])], capsys)
        assert status == 1 and "OJ102" in out

    def test_jar(self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
        import overjoin._jar as jar

        monkeypatch.setattr(jar, "jar_path", lambda: "/somewhere/overjoin.jar")
        status, out, _ = run(["jar"], capsys)
        assert status == 0 and out.strip() == "/somewhere/overjoin.jar"

    def test_jar_missing(self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
        import overjoin._jar as jar

        def missing() -> str:
            raise FileNotFoundError("no jar here")

        monkeypatch.setattr(jar, "jar_path", missing)
        status, _, err = run(["jar"], capsys)
        assert status == 1 and "no jar here" in err

    def test_demo_passes_arguments(self, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
        seen: list[list[str]] = []
        fake = types.ModuleType("overjoin.demo")

        def fake_main(argv: list[str]) -> int:
            seen.append(list(argv))
            return 0

        fake.main = fake_main  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, "overjoin.demo", fake)
        import overjoin

        monkeypatch.setattr(overjoin, "demo", fake, raising=False)
        assert cli.main(["demo", "--rows", "10", "--help"]) == 0
        assert seen == [["--rows", "10", "--help"]]

    def test_no_command_is_usage_error(self, capsys: pytest.CaptureFixture[str]) -> None:
        with pytest.raises(SystemExit) as stop:
            cli.main([])
        assert stop.value.code == 2


def test_python_dash_m(files: dict[str, Path]) -> None:
    env = {**os.environ, "PYTHONPATH": str(PYTHON_DIR)}
    done = subprocess.run(
        [sys.executable, "-m", "overjoin", "check", str(files["bad"])],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert f"{files['bad']}:2:45: error[OJ102]" in done.stdout


def test_validator_does_not_load_spark() -> None:
    code = (
        "import sys, overjoin, overjoin.cli, overjoin.explain\n"
        "overjoin.validate('SELECT STREAM * FROM a OVER (RANGE 1m PRECEDING) JOIN b ON TRUE')\n"
        "print('pyspark' in sys.modules)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(PYTHON_DIR)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
