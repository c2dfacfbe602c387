"""Reference values for shared/forensics from SciPy, printed as JSON.

Run by tests/unit/forensics-scipy.test.ts (Debian's python3-scipy; .ci/run
installs it). The inputs are generated here from a fixed seed and travel with
the expected values, so both sides see the same numbers.
"""
import json
import math

import numpy as np
from scipy import stats

rng = np.random.default_rng(20261123)


def rounded(xs, digits=3):
    # Latencies as a browser reports them: ms with microsecond resolution.
    return [round(float(x), digits) for x in xs]


def nearest_rank(x, p):
    s = np.sort(np.asarray(x))
    n = len(s)
    k = math.ceil(p / 100 * n - 1e-9)
    return float(s[min(n, max(1, k)) - 1])


rank_cases = []
# Exact: small, untied.
for n1, n2 in [(5, 7), (8, 8), (12, 9), (20, 20)]:
    a = rounded(rng.lognormal(3.0, 0.4, n1), 6)
    b = rounded(rng.lognormal(3.3, 0.4, n2), 6)
    r = stats.mannwhitneyu(a, b, alternative="two-sided", method="exact")
    rank_cases.append({"a": a, "b": b, "method": "exact", "u": float(r.statistic), "p": float(r.pvalue)})
# Asymptotic with many ties (latencies rounded to whole ms) and a planted shift.
for n1, n2, shift in [(200, 300, 0.0), (500, 400, 1.5), (60, 45, 4.0)]:
    a = [float(x) for x in np.round(rng.gamma(4.0, 5.0, n1))]
    b = [float(x) for x in np.round(rng.gamma(4.0, 5.0, n2) + shift)]
    r = stats.mannwhitneyu(a, b, alternative="two-sided", method="asymptotic", use_continuity=True)
    rank_cases.append({"a": a, "b": b, "method": "asymptotic", "u": float(r.statistic), "p": float(r.pvalue)})

boot_cases = []
for n1, n2, p in [(400, 300, 50), (2000, 1500, 99), (300, 300, 50)]:
    a = rounded(rng.lognormal(3.0, 0.5, n1))
    b = rounded(rng.lognormal(3.1, 0.6, n2))
    r = stats.bootstrap(
        (np.array(a), np.array(b)),
        lambda x, y, p=p: nearest_rank(x, p) - nearest_rank(y, p),
        n_resamples=4000,
        vectorized=False,
        method="percentile",
        confidence_level=0.95,
        random_state=rng,
    )
    boot_cases.append({
        "a": a, "b": b, "p": p,
        "estimate": nearest_rank(a, p) - nearest_rank(b, p),
        "lo": float(r.confidence_interval.low), "hi": float(r.confidence_interval.high),
        "se": float(r.standard_error),
    })

normal_cases = [{"z": z, "sf": float(stats.norm.sf(z))} for z in [-3.0, -0.5, 0.0, 0.3, 1.0, 1.96, 2.4, 2.6, 4.0, 7.5, 12.0]]

print(json.dumps({"scipy": __import__("scipy").__version__, "rank": rank_cases, "bootstrap": boot_cases, "normal": normal_cases}))
