"""Parses Prometheus text from stdin with the Prometheus Python client's own
parser and prints every sample as JSON: [{name, labels, value}, ...] plus the
families' types. A line the parser rejects raises, and the test fails."""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

families = []
for family in text_string_to_metric_families(sys.stdin.read()):
    families.append({
        "name": family.name,
        "type": family.type,
        "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in family.samples],
    })
print(json.dumps(families))
