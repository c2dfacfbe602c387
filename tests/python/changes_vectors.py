"""Reference values for shared/changes/student-t.ts from SciPy, printed as JSON.

Run by tests/unit/changes-stats.test.ts (Debian's python3-scipy; .ci/run
installs it). Inputs come from a fixed seed and travel with the expected values.
"""
import json

import numpy as np
from scipy import special, stats

rng = np.random.default_rng(20261127)

beta = []
for a, b in [(0.5, 0.5), (1.0, 3.0), (2.5, 0.5), (10.0, 0.5), (50.0, 0.5), (3.0, 7.0), (120.0, 0.5)]:
    for x in [0.001, 0.05, 0.3, 0.5, 0.77, 0.95, 0.9999]:
        beta.append({"x": x, "a": a, "b": b, "i": float(special.betainc(a, b, x))})

tails = []
for df in [1.0, 2.0, 3.7, 5.0, 10.0, 22.4, 47.0, 200.0]:
    for t in [0.0, 0.3, 1.0, 2.0, 3.5, 6.0, 12.0, -2.5]:
        tails.append({"t": t, "df": df, "p": float(2 * stats.t.sf(abs(t), df))})

welch = []
for n1, n2, shift, s2 in [(6, 6, 0.0, 1.0), (12, 24, 0.05, 2.0), (24, 24, 0.2, 0.5), (8, 30, -0.1, 3.0), (30, 7, 0.01, 1.0)]:
    a = rng.normal(0.5, 0.05, n1)
    b = rng.normal(0.5 + shift, 0.05 * s2, n2)
    r = stats.ttest_ind(a, b, equal_var=False)
    welch.append({"a": [float(x) for x in a], "b": [float(x) for x in b], "t": float(-r.statistic), "p": float(r.pvalue)})

print(json.dumps({"scipy": __import__("scipy").__version__, "beta": beta, "tails": tails, "welch": welch}))
