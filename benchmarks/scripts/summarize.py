#!/usr/bin/env python3
"""Medians across rounds of the JMH JSON results, and ratios taken within each round (same machine mood).

Usage: summarize.py DIR  (files DIR/r<round>-rate-t<threads>.json, r<round>-async.json, r<round>-conc-t<threads>.json)
"""
import glob
import json
import os
import re
import statistics
import sys
from collections import defaultdict

d = sys.argv[1]


def load(pattern):
    out = defaultdict(dict)  # (round, config) -> {method: score}
    for f in sorted(glob.glob(os.path.join(d, pattern))):
        rnd = int(re.search(r'/r(\d+)-', f).group(1))
        try:
            data = json.load(open(f))
        except ValueError:
            continue
        for e in data:
            method = e['benchmark'].rsplit('.', 1)[1]
            p = e.get('params', {})
            key = (rnd, e['threads'], p.get('keys', '1'), p.get('traffic', '-'), p.get('inFlight', '-'))
            out[key][method] = e['primaryMetric']['score']
    return out


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float('nan')


def table(results, configs, methods, ratios, label):
    print(f"| {label} | " + " | ".join(methods) + " | " + " | ".join(r[0] for r in ratios) + " |")
    print("|" + "---|" * (1 + len(methods) + len(ratios)))
    for cfg in configs:
        rounds = [k for k in results if k[1:] == cfg]
        cells = [f"{med([results[k].get(m) for k in rounds]):,.0f}" for m in methods]
        rcells = []
        for _, num, den in ratios:
            rs = [results[k][num] / results[k][den] for k in rounds if num in results[k] and den in results[k]]
            rcells.append(f"**{med(rs):.2f}×**" + (f" ({min(rs):.2f}–{max(rs):.2f})" if len(rs) > 1 else ""))
        name = ", ".join(str(c) for c in cfg if c != '-')
        print(f"| {name} | " + " | ".join(cells) + " | " + " | ".join(rcells) + " |")
    print(f"\n({len({k[0] for k in results})} rounds; scores are ops/s, medians across rounds; ratio = median of the per-round ratios, range in brackets)\n")


rate = load('r*-rate-t*.json')
if rate:
    configs = sorted({k[1:] for k in rate}, key=lambda c: (c[1] != '1', c[2], c[0]))
    table(rate, configs, ['floor', 'tryAcquire', 'tryAcquireAndAvailablePermits', 'bucket4j', 'sluice'],
          [('Sluice / tryAcquire', 'sluice', 'tryAcquire'), ('Sluice / Bucket4j', 'sluice', 'bucket4j'),
           ('Sluice / tryAcquire+available', 'sluice', 'tryAcquireAndAvailablePermits'),
           ('tryAcquire+available / tryAcquire', 'tryAcquireAndAvailablePermits', 'tryAcquire')],
          'threads, keys, traffic')

asy = load('r*-async.json')
if asy:
    configs = sorted({k[1:] for k in asy}, key=lambda c: (c[2], int(c[3])))
    table(asy, configs, ['floorAsync', 'tryAcquireAsync', 'tryAcquireAndAvailablePermitsAsync', 'bucket4jAsync', 'sluiceAsync'],
          [('Sluice / tryAcquire', 'sluiceAsync', 'tryAcquireAsync'), ('Sluice / Bucket4j', 'sluiceAsync', 'bucket4jAsync')],
          'thread, keys, traffic, in flight')

conc = load('r*-conc-t*.json')
if conc:
    configs = sorted({k[1:] for k in conc})
    table(conc, configs, ['sluiceAcquireRelease', 'redissonSemaphoreAcquireRelease'],
          [('Sluice / RPermitExpirableSemaphore', 'sluiceAcquireRelease', 'redissonSemaphoreAcquireRelease')], 'threads')

ip = os.path.join(d, 'inprocess.json')
if os.path.exists(ip):
    for e in json.load(open(ip)):
        pc = e['primaryMetric']['scorePercentiles']
        print(f"In-process ({e['benchmark'].rsplit('.', 1)[1]}, {e['threads']} thread): mean {e['primaryMetric']['score']:.0f} ns, "
              f"p50 {pc['50.0']:.0f} ns, p90 {pc['90.0']:.0f} ns, p99 {pc['99.0']:.0f} ns, p99.9 {pc['99.9']:.0f} ns")
