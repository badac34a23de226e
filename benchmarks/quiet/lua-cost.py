#!/usr/bin/env python3
"""The Redis CPU of one quiet decision, script against script (issue 26, docs/benchmarks/2026-12-03-issue-26-quiet-keys.md).

Runs many decisions inside one EVAL, on simulated time (10 decisions per ms over --keys keys, so each key's log holds
about what a quiet key's does), and reads the CPU time of Redis's main thread (/proc/<pid>/task/<pid>/schedstat)
around it: no network, no client, and less swayed by a busy machine than wall time. Variants, each in its own
database: sliding-log (rate.lua alone), sliding-log-batch (rate.lua inside batch.lua, 7 keys a call, as Sluice
sends cross-key calls), redisson (RRateLimiter.tryAcquire's script, read from the Redisson jar), noop (the driver
alone). Rounds interleave the variants; prints the min and median µs per decision of each.

  python3 benchmarks/quiet/lua-cost.py [--scripts DIR] [--rounds 14] [--decisions 10000] [--keys 10000]
      [--redisson-jar ~/.m2/.../redisson-4.7.0.jar] [--label new] [--scripts-b DIR --label-b old]

DIR is a checkout's redisson/src/main/resources/io/sluice/redisson/; --scripts-b adds the same variants of a second
one (an older checkout: git worktree add /tmp/old <commit>), so both are measured in the same rounds.
"""
import argparse, glob, os, re, socket, statistics, subprocess, sys, time, zipfile

ap = argparse.ArgumentParser()
here = os.path.dirname(os.path.abspath(__file__))
ap.add_argument('--scripts', default=os.path.join(here, '../../redisson/src/main/resources/io/sluice/redisson/'))
ap.add_argument('--label', default='this')
ap.add_argument('--scripts-b')
ap.add_argument('--label-b', default='b')
ap.add_argument('--rounds', type=int, default=14)
ap.add_argument('--decisions', type=int, default=10000)
ap.add_argument('--keys', type=int, default=10000)
ap.add_argument('--batch', type=int, default=7)
ap.add_argument('--redisson-jar', default=(sorted(glob.glob(os.path.expanduser(
    '~/.m2/repository/org/redisson/redisson/4.*/redisson-4.*.jar'))) or [None])[-1])
a = ap.parse_args()

COMMON = """
local base = tonumber(ARGV[1]); local n = tonumber(ARGV[2]); local seed = ARGV[3]; local nkeys = tonumber(ARGV[4])
math.randomseed(tonumber(seed))
"""
SL_ARGS = "{'1', tostring(now), seed .. ':' .. i, '1000000', '10000', '10000', '0', '0'}"
LOOP = """for i = 1, n do
  local k = '{sk:' .. math.random(nkeys) .. '}'
  local now = base + math.floor(i / 10)
  decide({k, k .. ':v', k .. ':p'}, %s)
end
return n
""" % SL_ARGS


def read(d, p):
    return open(os.path.join(d, p)).read()


def sluice_variants(d, label):
    rate = read(d, 'rate/rate.lua')
    batch = "local function batch(KEYS, ARGV)\n" + read(d, 'shared/batch.lua') + "\nend\n"
    loopb = """for i = 1, n, %d do
  local now = tostring(base + math.floor(i / 10))
  local keys, args = {}, {'8', '3', '3', '4', '1'}
  for j = 1, %d do
    local k = '{sk:' .. math.random(nkeys) .. '}'
    keys[#keys + 1] = k; keys[#keys + 1] = k .. ':v'; keys[#keys + 1] = k .. ':p'
    for _, v in ipairs({tostring(j), '1', '1', now, seed .. ':' .. i .. ':' .. j, '1000000', '10000', '10000', '0', '0'}) do args[#args + 1] = v end
  end
  batch(keys, args)
end
return n
""" % (a.batch, a.batch)
    wrap = "local function decide(KEYS, ARGV)\n%s\nend\n"
    return {label + ' sliding-log': wrap % rate + COMMON + LOOP,
            label + ' sliding-log-batch': wrap % rate + batch + COMMON + loopb}


variants = {}
variants.update(sluice_variants(a.scripts, a.label))
if a.scripts_b: variants.update(sluice_variants(a.scripts_b, a.label_b))
variants['noop'] = "local function decide(KEYS, ARGV)\nreturn {1, 0, 0, 0}\nend\n" + COMMON + LOOP
if a.redisson_jar:
    cls = zipfile.ZipFile(a.redisson_jar).read('org/redisson/RedissonRateLimiter.class').decode('latin-1')
    body = next(s for s in re.findall(r"local rate = redis\.call\('hget'[^\x00-\x08]*?return res;", cls) if "'zadd'" in s)
    variants['redisson tryAcquire'] = "local function try(KEYS, ARGV)\n" + body + "\nend\n" + COMMON + """
for i = 1, n do
  local k = 'rk:' .. math.random(nkeys)
  local now = base + math.floor(i / 10)
  try({k, k .. ':v', k .. ':v:c', k .. ':p', k .. ':p:c'}, {'1', tostring(now), seed .. ':' .. i})
end
return n
"""

s = socket.socket(); s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]; s.close()
redis = subprocess.Popen(['redis-server', '--port', str(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no',
                          '--busy-reply-threshold', '600000', '--lua-time-limit', '600000'], stdout=subprocess.DEVNULL)
try:
    cli = ['redis-cli', '-p', str(port)]
    while subprocess.run(cli + ['ping'], capture_output=True).returncode != 0: time.sleep(0.1)
    pid = redis.pid
    names = list(variants)
    db = {n: i + 1 for i, n in enumerate(names)}
    clock = {n: 10 ** 12 for n in names}
    if 'redisson tryAcquire' in variants:
        subprocess.run(cli + ['-n', str(db['redisson tryAcquire']), 'eval',
                              "for i=1,%d do redis.call('hset','rk:'..i,'rate',1000000,'interval',10000,'type',0,'keepAliveTime',0) end" % a.keys, '0'],
                       check=True, capture_output=True)

    def cpu():
        return int(open('/proc/%d/task/%d/schedstat' % (pid, pid)).read().split()[0])

    def one(n):
        before = cpu()
        r = subprocess.run(cli + ['-n', str(db[n]), 'eval', variants[n], '0', str(clock[n]), str(a.decisions),
                                  str(1 + (clock[n] // 7) % 30000), str(a.keys)], capture_output=True, text=True)
        if r.returncode != 0 or 'ERR' in r.stdout: sys.exit(n + ': ' + r.stdout + r.stderr)
        clock[n] += a.decisions // 10 + 1
        return (cpu() - before) / 1000 / a.decisions

    # Warm-up: 10 simulated seconds (a full window) for every variant.
    for _ in range(10):
        for n in names: one(n)
    got = {n: [] for n in names}
    for r in range(a.rounds):
        for n in (names if r % 2 == 0 else reversed(names)): got[n].append(one(n))
    print('Redis main-thread CPU µs per decision, %d rounds of %d decisions over %d keys (load %s)'
          % (a.rounds, a.decisions, a.keys, open('/proc/loadavg').read().split()[0]))
    print('| variant | min | median |\n|---|---|---|')
    for n in names: print('| %s | %.2f | %.2f |' % (n, min(got[n]), statistics.median(got[n])))
finally:
    redis.terminate()
