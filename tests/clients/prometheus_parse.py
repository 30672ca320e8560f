"""Parses Prometheus text (stdin) with the official Python client's parser and prints its samples as JSON lines
({"name", "labels", "value"}); exits non-zero if the text does not parse. Usage: python prometheus_parse.py < text"""

import json
import math
import sys

from prometheus_client.parser import text_string_to_metric_families

for family in text_string_to_metric_families(sys.stdin.read()):
    for s in family.samples:
        value = s.value if math.isfinite(s.value) else str(s.value)
        print(json.dumps({"family": family.name, "type": family.type, "name": s.name, "labels": s.labels,
                          "value": value}))
