"""The chart under Helm's own engine (Helm v4's Go SDK, from PyPI's helm-python-sdk): render,
validate values against values.schema.json, lint. Prints one JSON object; the Node test asserts.

    helm.py render   CHART VALUES  -> {"manifests": {template: [document, ...]}} or {"error": msg}
    helm.py validate CHART VALUES  -> {"ok": true} or {"ok": false, "error": msg}
    helm.py lint     CHART VALUES  -> Helm's lint report

VALUES is a .yaml or .json file ("-" for none: the chart's defaults).
"""
import json
import re
import sys

import helm_python as helm


def load_values(path):
    if path == "-":
        return None
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return json.loads(text) if path.endswith(".json") else helm.values_from_yaml(text)


def main(command, chart_dir, values_path):
    values = load_values(values_path)
    if command == "lint":
        return helm.lint(chart_dir, values, strict=True)
    with helm.Chart.load(chart_dir) as chart:
        if command == "validate":
            try:
                chart.validate_schema(chart.merge_values(values))
                return {"ok": True}
            except helm.HelmError as e:
                return {"ok": False, "error": str(e)}
        if command == "render":
            try:
                rendered = chart.render(values, name="chat", namespace="chat")
            except helm.HelmError as e:
                return {"error": str(e)}
            manifests = {}
            for template, text in sorted(rendered.items()):
                docs = [d for d in re.split(r"^---\s*$", text, flags=re.M) if d.strip() and not all(
                    l.strip().startswith("#") or not l.strip() for l in d.splitlines())]
                manifests[template] = [helm.values_from_yaml(d) for d in docs]
            return {"manifests": manifests}
    raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:4])))
