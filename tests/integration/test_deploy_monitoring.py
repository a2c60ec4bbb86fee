"""The Grafana dashboard and the Prometheus files under deploy/ load, and name only what gqlgate exports.

Every PromQL expression (dashboard panels and variables, alert rules) is parsed with a
real PromQL parser; each metric it selects must be a series of a live gqlgate's
/metrics, scraped after queries, a mutation, cache hits, a refused request and a
subscription went through it (the subscription still live), and each label it matches
or groups by must be one that series carries (or a target label Prometheus adds).
Names from other exporters are allowed only from a short, explicit list.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import typing

import promql_parser
import pytest
import yaml
from websockets.sync.client import connect

from conftest import _RUNNING, GatewayFactory
from harness import GRAPHQL_RESPONSE, REPO_ROOT, ProcessGroup, curl, post_graphql

DASHBOARD = REPO_ROOT / "deploy" / "grafana" / "gqlgate-dashboard.json"
ALERTS = REPO_ROOT / "deploy" / "prometheus" / "gqlgate-alerts.yaml"
ALERT_TESTS = REPO_ROOT / "deploy" / "prometheus" / "gqlgate-alerts.test.yaml"
SCRAPE_CONFIG = REPO_ROOT / "deploy" / "prometheus" / "scrape-config.yaml"

# Series that come from elsewhere: Prometheus itself and kube-state-metrics.
OTHER_EXPORTERS = {"up", "kube_pod_container_status_ready", "kube_pod_init_container_status_ready"}
# Labels Prometheus puts on every series of a target (scrape-config.yaml adds namespace and pod).
TARGET_LABELS = {"job", "instance", "namespace", "pod"}
# Grafana's own variables, replaced by a duration before parsing.
GRAFANA_DURATIONS = re.compile(r"\$__(rate_interval|interval|range)")
LABEL_VALUES = re.compile(r"^label_values\((.*),\s*(\w+)\)$")


# ---------------------------------------------------------------------------
# What gqlgate exports


class Exposition:
    """Sample names of a /metrics text and, per name, the labels and values seen."""

    def __init__(self, text: str) -> None:
        self.families: dict[str, str] = {}
        self.labels: dict[str, dict[str, set[str]]] = {}
        for line in text.splitlines():
            if line.startswith("# TYPE "):
                _, _, name, kind = line.split(maxsplit=3)
                self.families[name] = kind
            elif line and not line.startswith("#"):
                name, _, rest = line.partition("{")
                name = name.split()[0]
                seen = self.labels.setdefault(name, {})
                for key, value in re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', rest.rpartition("}")[0]):
                    seen.setdefault(key, set()).add(value)

    def samples(self) -> set[str]:
        return set(self.labels)


def scrape(gw: typing.Any) -> Exposition:
    r = curl(gw.path("/metrics"))
    assert r.status == 200, str(r)
    return Exposition(r.text)


def value(gw: typing.Any, series: str) -> float:
    for line in curl(gw.path("/metrics")).text.splitlines():
        if line.startswith(series + " "):
            return float(line.split()[-1])
    raise AssertionError(f"{series} not in /metrics")


@pytest.fixture(scope="module")
def exercised(gqlgate_bin, proc_dir, tmp_path_factory, strawberry_upstream):
    """A gqlgate with the cache on, after traffic of every kind the dashboard shows, one subscription live."""
    group = ProcessGroup(proc_dir, _RUNNING)
    factory = GatewayFactory(gqlgate_bin, group, tmp_path_factory.mktemp("monitoring"), lambda: strawberry_upstream.url)
    tmp = tmp_path_factory.mktemp("monitoring-schema")
    # A schema at the edge for the demand control and field usage panels; `hello` marked
    # deprecated here so that the deprecated-field panel has a series.
    schema = tmp / "schema.graphql"
    schema.write_text(
        'type Query { hello(name: String): String @deprecated(reason: "say hi") }\n'
        "type Book { id: ID! title: String! author: String! }\n"
        "type Mutation { addBook(title: String!, author: String!): Book! }\n"
        "type Subscription { ticks(intervalMs: Int! = 100): Int! }\n"
    )
    config = (
        "cache: {enabled: true, default_ttl: 60s}\n"
        f"schema: {{source: file, file: {json.dumps(str(schema))}}}\n"
        "demand_control: {mode: measure}\n"
        "metrics: {field_usage: true}\n"
    )
    try:
        gw = factory(strawberry_upstream.url, config=config)
        for _ in range(2):
            assert post_graphql(gw.url, '{ hello(name: "dashboard") }').status == 200
        mutation = 'mutation { addBook(title: "Dashboards", author: "Grafana") { id } }'
        assert post_graphql(gw.url, mutation).status == 200
        assert post_graphql(gw.url, "{ hello", headers=GRAPHQL_RESPONSE).status == 400
        with connect(f"ws://127.0.0.1:{gw.port}/graphql", subprotocols=["graphql-transport-ws"]) as ws:
            ws.send(json.dumps({"type": "connection_init"}))
            assert json.loads(ws.recv(timeout=10))["type"] == "connection_ack"
            ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": "subscription { ticks(intervalMs: 1000) }"}}))
            assert json.loads(ws.recv(timeout=10))["type"] == "next"
            assert value(gw, "gqlgate_cache_hits_total") >= 1
            assert value(gw, 'gqlgate_requests_total{operation="mutation",status="2xx"}') >= 1
            assert value(gw, "gqlgate_subscriptions_active") == 1
            yield gw
    finally:
        group.stop_all()


# ---------------------------------------------------------------------------
# The expressions of the files


def dashboard_expressions(dashboard: dict) -> list[tuple[str, str]]:
    """(where, PromQL) of every panel target and every query variable."""
    found: list[tuple[str, str]] = []

    def panels(items: list[dict]) -> typing.Iterator[dict]:
        for p in items:
            yield p
            yield from panels(p.get("panels", []))

    for p in panels(dashboard["panels"]):
        for t in p.get("targets", []):
            found.append((f"panel {p['title']!r} target {t['refId']}", t["expr"]))
    for var in dashboard["templating"]["list"]:
        if var["type"] == "query":
            match = LABEL_VALUES.match(var["query"]["query"])
            assert match, f"variable {var['name']}: expected label_values(selector, label), got {var['query']}"
            found.append((f"variable {var['name']}", match.group(1)))
    return [(where, GRAFANA_DURATIONS.sub("5m", expr)) for where, expr in found]


def rule_expressions(rules: dict) -> list[tuple[str, str]]:
    return [(f"alert {r['alert']}", r["expr"]) for g in rules["groups"] for r in g["rules"]]


def problems(expr: str, exported: Exposition) -> list[str]:
    """What `expr` names that gqlgate does not export (metric names, labels, label values)."""
    found: list[str] = []
    ast = promql_parser.parse(expr)

    def selectors(node: typing.Any) -> list[typing.Any]:
        out: list[typing.Any] = []
        promql_parser.walk(node, lambda n: out.append(n) if isinstance(n, promql_parser.VectorSelector) else None)
        return out

    def name_of(sel: typing.Any) -> typing.Optional[str]:
        if sel.name:
            return sel.name
        names = [m.value for m in sel.matchers.matchers if m.name == "__name__" and m.op == promql_parser.MatchOp.Equal]
        return names[0] if names else None

    def check_selector(sel: typing.Any) -> None:
        name = name_of(sel)
        if name is None:
            found.append(f"selector without a metric name: {sel}")
            return
        if name in OTHER_EXPORTERS:
            return
        if name not in exported.samples():
            found.append(f"metric {name} is not exported")
            return
        labels = exported.labels[name]
        for m in sel.matchers.matchers:
            if m.name == "__name__" or m.name in TARGET_LABELS:
                continue
            if m.name not in labels:
                found.append(f"{name} has no label {m.name}")
            elif "$" not in m.value:
                wanted = m.value.split("|") if m.op in (promql_parser.MatchOp.Re, promql_parser.MatchOp.NotRe) else [m.value]
                for v in wanted:
                    if not any(re.fullmatch(v, seen) for seen in labels[m.name]):
                        found.append(f"{name}{{{m.name}}} never has a value matching {v!r} (seen: {sorted(labels[m.name])})")

    def check_grouping(node: typing.Any) -> None:
        if not isinstance(node, promql_parser.AggregateExpr) or node.modifier is None:
            return
        if node.modifier.type != promql_parser.AggModifierType.By:
            return
        inner = [exported.labels.get(name_of(s) or "", {}) for s in selectors(node.expr)]
        available = set(TARGET_LABELS).union(*[set(labels) for labels in inner])
        for label in node.modifier.labels:
            if label not in available:
                found.append(f"{node.op} by ({label}) over series without that label")

    promql_parser.walk(ast, lambda n: check_selector(n) if isinstance(n, promql_parser.VectorSelector) else None)
    promql_parser.walk(ast, check_grouping)
    return found


@pytest.fixture(scope="session")
def promtool() -> str:
    found = subprocess.run([str(REPO_ROOT / "scripts" / "promtool.sh")], capture_output=True, text=True)
    if found.returncode == 3:
        pytest.skip(found.stderr.strip())
    assert found.returncode == 0, found.stderr
    return found.stdout.strip()


def run_promtool(promtool: str, *args: str) -> None:
    result = subprocess.run([promtool, *args], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, f"promtool {' '.join(args)}:\n{result.stdout}{result.stderr}"


# ---------------------------------------------------------------------------
# Tests


def test_dashboard_is_importable_grafana_json():
    dashboard = json.loads(DASHBOARD.read_text())
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource" and variables["datasource"]["query"] == "prometheus"
    ids = []
    for panel in dashboard["panels"]:
        ids.append(panel["id"])
        assert {"x", "y", "w", "h"} <= set(panel["gridPos"]), panel["title"]
        if panel["type"] != "row":
            assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, panel["title"]
            assert panel["targets"] and all(t["expr"] for t in panel["targets"]), panel["title"]
    assert len(ids) == len(set(ids)), "panel ids repeat"
    assert dashboard["uid"] and dashboard["title"]


def test_alert_rules_are_a_prometheus_rule_file():
    rules = yaml.safe_load(ALERTS.read_text())
    assert set(rules) == {"groups"}
    names = []
    for group in rules["groups"]:
        assert set(group) <= {"name", "interval", "limit", "rules"} and group["name"], group
        for rule in group["rules"]:
            assert set(rule) <= {"alert", "expr", "for", "keep_firing_for", "labels", "annotations"}, rule
            names.append(rule["alert"])
            assert re.fullmatch(r"[a-zA-Z_][a-zA-Z0-9_]*", rule["alert"]), rule["alert"]
            assert re.fullmatch(r"(\d+[smhdwy])+", rule.get("for", "0s")), rule
            assert rule["labels"]["severity"] in {"critical", "warning", "info"}, rule
            assert rule["annotations"]["summary"] and rule["annotations"]["description"], rule
            promql_parser.parse(rule["expr"])
    assert len(names) == len(set(names)), f"alert names repeat: {names}"


def test_alert_rules_pass_promtool_and_their_unit_tests(promtool):
    run_promtool(promtool, "check", "rules", str(ALERTS))
    run_promtool(promtool, "test", "rules", str(ALERT_TESTS))


def test_scrape_config_passes_promtool(promtool, tmp_path):
    # Debian builds Prometheus without Kubernetes discovery: the copy checked here finds its
    # target statically and keeps everything else (relabelling, rule files).
    config = yaml.safe_load(SCRAPE_CONFIG.read_text())
    for job in config["scrape_configs"]:
        assert job.pop("kubernetes_sd_configs") == [{"role": "pod"}]
        job["static_configs"] = [{"targets": ["127.0.0.1:8080"]}]
    (tmp_path / "scrape-config.yaml").write_text(yaml.safe_dump(config))
    for name in config["rule_files"]:
        shutil.copy(SCRAPE_CONFIG.parent / name, tmp_path / name)
    run_promtool(promtool, "check", "config", str(tmp_path / "scrape-config.yaml"))


def test_scrape_config_loads_the_rules_and_names_the_job_the_rules_use():
    config = yaml.safe_load(SCRAPE_CONFIG.read_text())
    for name in config["rule_files"]:
        assert (SCRAPE_CONFIG.parent / name).is_file(), name
    jobs = {job["job_name"] for job in config["scrape_configs"]}
    assert jobs == {"gqlgate"}
    assert 'job="gqlgate"' in ALERTS.read_text()


def test_the_checker_finds_names_gqlgate_does_not_export(exercised):
    exported = scrape(exercised)
    assert problems('sum by (status) (rate(gqlgate_requests_total{operation="query"}[5m]))', exported) == []
    assert problems("rate(gqlgate_made_up_total[5m])", exported) == ["metric gqlgate_made_up_total is not exported"]
    assert problems("gqlgate_request_duration_seconds", exported) == [
        "metric gqlgate_request_duration_seconds is not exported"
    ]
    assert problems('gqlgate_requests_total{operation="subscriptions"}', exported) != []
    assert problems('gqlgate_requests_total{outcome="ok"}', exported) == ["gqlgate_requests_total has no label outcome"]
    assert problems("sum by (outcome) (gqlgate_requests_total)", exported) != []


def test_dashboard_and_alerts_name_only_what_gqlgate_exports(exercised):
    exported = scrape(exercised)
    expressions = dashboard_expressions(json.loads(DASHBOARD.read_text())) + rule_expressions(
        yaml.safe_load(ALERTS.read_text())
    )
    found = [f"{where}: {p}\n    {expr}" for where, expr in expressions for p in problems(expr, exported)]
    assert not found, "\n".join(found)


def test_dashboard_shows_every_metric_gqlgate_exports(exercised):
    exported = scrape(exercised)
    text = DASHBOARD.read_text()
    missing = [name for name in exported.families if name.startswith("gqlgate_") and name not in text]
    assert not missing, f"no panel for {missing}"
