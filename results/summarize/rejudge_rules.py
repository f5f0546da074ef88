#!/usr/bin/env python3
"""Re-judges the ab folders of measure_verdicts.sh (WORK/ab/{aa,s10_,s5_}N/{A,B}/run-K.json) under
candidate SLOWER rules, outside collbench, to choose a rule before changing compare.cpp (issue 20).
Each run's figure is its p10 time per row; per row the pairs' log ratios B/A; the exact one-sided
Wilcoxon signed-rank p (all 2^n sign assignments) and the Hodges-Lehmann estimate; Holm over the
rows and the benchmark as a whole (each run's geometric mean over rows). A comparison fails when
any row is SLOWER. Usage: rejudge_rules.py WORK/ab [ALPHAS [MIN_ESTIMATES]], comma lists
(default 0.05,0.01 and 0,0.02,0.025,0.03). Runs are those ab made under the rule in force then: a
stricter rule would have asked for more runs where ab stopped early, so its power here is a floor.
"""
import json, glob, math, itertools, statistics, sys, collections
root = sys.argv[1]
def figures(path):
    d = json.load(open(path))
    out = {}
    for r in d['results']:
        t = r.get('time_us') or {}
        if 'p10' in t:
            out[(r['bytes'], r.get('placement'))] = t['p10']
    return out
def wilcoxon_p_greater(x):
    # exact one-sided p for H0: symmetric about 0, alternative: shifted up
    x = [v for v in x if v != 0]
    n = len(x)
    ranks = sorted(range(n), key=lambda i: abs(x[i]))
    r = [0]*n
    for k, i in enumerate(ranks): r[i] = k+1
    w = sum(r[i] for i in range(n) if x[i] > 0)
    count = 0
    for signs in itertools.product([0,1], repeat=n):
        if sum(r[i] for i in range(n) if signs[i]) >= w: count += 1
    return count / 2**n
def hl(x):
    w = [(x[i]+x[j])/2 for i in range(len(x)) for j in range(i, len(x))]
    return statistics.median(w)
def holm(ps, alpha):
    order = sorted(range(len(ps)), key=lambda i: ps[i]); rej = [False]*len(ps)
    for k, i in enumerate(order):
        if ps[i] <= alpha/(len(ps)-k): rej[i] = True
        else: break
    return rej
alphas = [float(v) for v in (sys.argv[2] if len(sys.argv) > 2 else '0.05,0.01').split(',')]
minimums = [float(v) for v in (sys.argv[3] if len(sys.argv) > 3 else '0,0.02,0.025,0.03').split(',')]
rules = [(a, m) for a in alphas for m in minimums]
res = collections.defaultdict(lambda: collections.Counter())
totals = collections.Counter()
for kind in ('aa', 's10_', 's5_'):
    for d in sorted(glob.glob(f'{root}/{kind}[0-9]*')):
        if not glob.glob(d + '/A/run-*.json'): continue
        runs = sorted(glob.glob(d + '/A/run-*.json'))
        pairs = [(figures(a), figures(a.replace('/A/', '/B/'))) for a in runs if glob.glob(a.replace('/A/', '/B/'))]
        if len(pairs) < 3: continue
        keys = set(pairs[0][0]) & set(pairs[0][1])
        ratios = {k: [math.log(b[k]/a[k]) for a, b in pairs if k in a and k in b] for k in keys}
        # the benchmark as a whole: each run's geometric mean over rows
        ratios['all'] = [statistics.mean(math.log(b[k]/a[k]) for k in keys) for a, b in pairs]
        ps = {k: wilcoxon_p_greater(v) for k, v in ratios.items()}
        est = {k: hl(v) for k, v in ratios.items()}
        totals[kind] += 1
        for a, m in rules:
            ks = list(ratios)
            rej = holm([ps[k] for k in ks], a)
            slower = any(rej[i] and est[k] >= math.log1p(m) for i, k in enumerate(ks))
            res[(a, m)][kind] += slower
print('comparisons', dict(totals))
for (a, m), c in res.items():
    print(f'alpha {a} min-estimate {m:.3f}: ' + ', '.join(f'{k} {c[k]}/{totals[k]}' for k in ('aa', 's10_', 's5_')))
