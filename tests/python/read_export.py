"""Reads a tailprobe CSV export with pandas the way docs/api.md shows, and
prints what a user would check first: rows, columns, dtypes, and p99 per
(method, target) of the ok samples."""
import json
import math
import sys

import pandas as pd

df = pd.read_csv(sys.argv[1])
df["t"] = pd.to_datetime(df["t"], unit="ms")
ok = df[df["outcome"] == "ok"]


def p99(ms):
    # Nearest rank, as tailprobe's tables define it: the value at rank ceil(0.99 n).
    s = ms.sort_values().to_numpy()
    return s[max(1, math.ceil(0.99 * len(s) - 1e-9)) - 1]


p99 = ok.groupby(["method", "target"])["ms"].agg(p99)
print(json.dumps({
    "rows": len(df),
    "columns": list(df.columns),
    "dtypes": {c: str(t) for c, t in df.dtypes.items()},
    "p99": {f"{m} {t}": float(v) for (m, t), v in p99.items()},
}))
