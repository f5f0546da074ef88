#!/usr/bin/env python3
"""How many dated runs `history` needs to place a 10 % step within one run, on this VM's noise.

Offline, on the all-rows levels that measure_verdicts.sh's history series produced (one line per
series: name, then each run's level in percent of the series' median). It re-implements the
all-rows rule of src/summarize/history.cpp (1.5x set-aside; one-sided energy split, exponent 0.5;
5 % min change held in the latest 3 runs; permutation p) so that other statistics and series
lengths can be tried without new runs.

  history_power.py rules LEVELS...         # each statistic on the measured series
  history_power.py runs LEVELS... [TRIALS]  # bootstrap from the flat series' runs: runs needed

The bootstrap draws runs independently; the VM's states come in episodes of minutes, so it is an
optimistic bound. Needs numpy.
"""
import math
import sys

import numpy as np

MIN_SEGMENT, MIN_CHANGE, SET_ASIDE = 3, 0.05, 1.5


def load(path):
    series = {}
    for line in open(path):
        fields = line[7:].split()
        series[line[:7].replace(' ', '')] = [math.log(1 + float(x) / 100) for x in fields]
    return series


def energy(left, right, exponent=0.5):
    l, r = len(left), len(right)
    between = (np.abs(left[:, None] - right[None, :]) ** exponent).sum()
    within_l = (np.abs(left[:, None] - left[None, :]) ** exponent).sum() / 2
    within_r = (np.abs(right[:, None] - right[None, :]) ** exponent).sum() / 2
    e = 2 * between / (l * r) - 2 * within_l / (l * (l - 1)) - 2 * within_r / (r * (r - 1))
    return l * r / (l + r) * e


def score(values, k, statistic):
    left, right = values[:k], values[k:]
    n = len(values)
    if statistic == 'energy':
        return energy(left, right) if np.median(right) > np.median(left) else 0.0
    if statistic == 'ranks':  # Mann-Whitney, standardised
        u = (right[:, None] > left[None, :]).sum() + 0.5 * (right[:, None] == left[None, :]).sum()
        return (u - k * (n - k) / 2) / math.sqrt(k * (n - k) * (n + 1) / 12)
    if statistic == 'p25':  # lower quartiles: interference only adds time
        return (np.quantile(right, 0.25) - np.quantile(left, 0.25)) * math.sqrt(k * (n - k) / n)
    raise ValueError(statistic)


def best_split(values, statistic):
    best = (None, 0.0)
    for k in range(MIN_SEGMENT, len(values) - MIN_SEGMENT + 1):
        s = score(values, k, statistic)
        if s > best[1]:
            best = (k, s)
    return best


def slowdown_at(levels, statistic, alpha, permutations, rng):
    """The run index where a kept slowdown starts, or None."""
    usual = np.median(sorted(levels)[: (len(levels) + 1) // 2])
    limit = usual + math.log(SET_ASIDE)
    lasting = all(x > limit for x in levels[-MIN_SEGMENT:])
    kept = [i for i, x in enumerate(levels) if lasting or x <= limit]
    values = np.array([levels[i] for i in kept])
    if len(values) < 2 * MIN_SEGMENT:
        return None
    k, s = best_split(values, statistic)
    if k is None:
        return None
    before = np.median(values[:k])
    if math.exp(np.median(values[k:]) - before) - 1 < MIN_CHANGE:
        return None
    if math.exp(np.median(values[-MIN_SEGMENT:]) - before) - 1 < MIN_CHANGE:
        return None
    shuffled, as_strong = values.copy(), 0
    for _ in range(permutations):
        rng.shuffle(shuffled)
        as_strong += best_split(shuffled, statistic)[1] >= s * (1 - 1e-12)
    return kept[k] if (as_strong + 1) / (permutations + 1) < alpha else None


def rules(files):
    rng = np.random.default_rng(1)
    for path in files:
        series = load(path)
        for statistic in ('energy', 'ranks', 'p25'):
            for alpha in (0.025, 0.05):
                flat = sum(slowdown_at(v, statistic, alpha, 999, rng) is not None
                           for n, v in series.items() if n.startswith('flat'))
                steps = [slowdown_at(v, statistic, alpha, 999, rng) for n, v in series.items() if n.startswith('step')]
                near = sum(at is not None and 6 <= at <= 8 for at in steps)
                print(f'{path.split("/")[-1]}  {statistic:6}  alpha {alpha}:  flat exit 1 {flat}/20,'
                      f'  step found within 1 run {near}/{len(steps)}', flush=True)


def runs_needed(files, trials):
    rng = np.random.default_rng(7)
    noise = np.array([x for path in files for n, v in load(path).items() if n.startswith('flat') for x in v])
    print(f'noise: {len(noise)} runs of flat series; {trials} trials each; alpha 0.025 (the all-rows share)')
    for runs, after in ((12, 5), (20, 5), (16, 8), (20, 10), (24, 12)):
        near = flat = 0
        for _ in range(trials):
            step = rng.choice(noise, runs)
            step[runs - after:] += math.log(1.1)
            at = slowdown_at(list(step), 'energy', 0.025, 199, rng)
            near += at is not None and abs(at - (runs - after)) <= 1
            flat += slowdown_at(list(rng.choice(noise, runs)), 'energy', 0.025, 199, rng) is not None
        print(f'{runs} runs, step before the last {after}:  found within 1 run {near}/{trials}'
              f' ({100 * near / trials:.0f} %),  flat exit 1 {flat}/{trials}', flush=True)


if __name__ == '__main__':
    if len(sys.argv) < 3 or sys.argv[1] not in ('rules', 'runs'):
        sys.exit(__doc__)
    if sys.argv[1] == 'rules':
        rules(sys.argv[2:])
    else:
        trials = int(sys.argv[-1]) if sys.argv[-1].isdigit() else 100
        runs_needed([a for a in sys.argv[2:] if not a.isdigit()], trials)
