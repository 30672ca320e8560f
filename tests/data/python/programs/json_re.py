import json, re
doc = json.loads('{"a": [1, 2, {"b": null}], "c": 1.5}')
print(doc["a"][2], json.dumps(doc, sort_keys=True))
print(re.findall(r"\d+", "a1b22c333"), re.sub(r"(\w+)@(\w+)", r"\2 at \1", "me@home"))
m = re.match(r"(?P<year>\d{4})-(?P<month>\d\d)", "2026-11")
m.group("year"), m.group("month")
