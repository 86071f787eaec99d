"""YARN's defaults taken out of a server's Hadoop configuration (``io.overjoin.streams.HadoopDefaults``).

``overjoin server`` drops from its Hadoop configuration the entries whose only source is
``yarn-default.xml`` when it does not run on YARN (docs/operator.md, "An application's pumps on one
server"). These tests run the trim on a copy of the session's configuration and check that exactly
those entries go: every other entry keeps its value, and a YARN key that was set keeps it.
"""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.streaming


def _entries(conf: Any) -> dict[str, str]:
    out = {}
    it = conf.iterator()
    while it.hasNext():
        e = it.next()
        out[str(e.getKey())] = str(e.getValue())
    return out


def _sources(conf: Any, key: str) -> list[str]:
    s = conf.getPropertySources(key)
    return [str(x) for x in s] if s is not None else []


def test_only_yarns_defaults_go(spark):
    jvm = spark._jvm
    conf = jvm.org.apache.hadoop.conf.Configuration(spark._jsc.hadoopConfiguration())
    before = _entries(conf)
    yarn_defaults = {k for k in before if _sources(conf, k) == ["yarn-default.xml"]}
    assert len(yarn_defaults) > 100, "the session's configuration should hold YARN's defaults"
    # A YARN key given a value of its own, and one that is not a default at all.
    chosen = sorted(yarn_defaults)[0]
    conf.set(chosen, "set-by-the-user")
    conf.set("yarn.overjoin.test.key", "kept")
    dropped = jvm.io.overjoin.streams.HadoopDefaults.trim(conf)
    after = _entries(conf)
    assert dropped == len(yarn_defaults) - 1
    assert set(before) - set(after) == yarn_defaults - {chosen}
    assert after[chosen] == "set-by-the-user" and after["yarn.overjoin.test.key"] == "kept"
    assert {k: v for k, v in after.items() if k not in (chosen, "yarn.overjoin.test.key")} == {
        k: v for k, v in before.items() if k not in yarn_defaults
    }
    # A second pass finds nothing more.
    assert jvm.io.overjoin.streams.HadoopDefaults.trim(conf) == 0


def test_a_plain_session_keeps_them(spark):
    """Only the server trims: a session with overjoin's extension keeps Spark's Hadoop configuration
    as it is (plain Spark behaves as without overjoin)."""
    conf = spark._jsc.hadoopConfiguration()
    assert any(_sources(conf, k) == ["yarn-default.xml"] for k in _entries(conf))
