#!/usr/bin/env bash
# Two JVM set-ups of the quiet key's round trip (io.sluice.benchmarks.QuietRoundTrip, one transport) compared
# round by round on one Redis: a JVM flag (Netty's leak detector), or two builds of Sluice (old and new jars ahead
# of the benchmarks jar on the classpath). A round runs A then B, the next B then A; each JVM prints the median
# of its slices (decisions per second, and its JVM's CPU µs per decision, steadier on a busy machine), and the
# tables give medians of the per-round ratios B / A with their range.
#
#   benchmarks/quiet/ab.sh                                         # 8 rounds, A = default, B = leak detector off
#   B_OPTS="" A_CP=old/core.jar:old/redisson.jar: benchmarks/quiet/ab.sh   # old build (A) against this one (B)
#   ROUNDS=12 ARGS="--threads 1 --slice-ms 2000" benchmarks/quiet/ab.sh
#
# Build first: mvn -B -pl benchmarks -am -DskipTests package. Prints one line per JVM run, then the table.
set -euo pipefail
cd "$(dirname "$0")/../.."
JAR=benchmarks/target/benchmarks.jar
ROUNDS=${ROUNDS:-8}
A_OPTS=${A_OPTS-}
B_OPTS=${B_OPTS--Dio.netty.leakDetection.level=disabled}
A_CP=${A_CP-}
B_CP=${B_CP-}
ARGS=${ARGS:---transports nio --rounds 3 --slice-ms 1000 --threads 1,16}
OUT=$(mktemp -d)

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize no >"$OUT/redis.log" 2>&1 &
REDIS=$!
trap 'kill $REDIS' EXIT
until redis-cli -p "$PORT" ping >/dev/null 2>&1; do sleep 0.1; done

run() { # side round
  local opts cp
  if [ "$1" = A ]; then opts=$A_OPTS; cp=$A_CP; else opts=$B_OPTS; cp=$B_CP; fi
  # shellcheck disable=SC2086
  java $opts -Dsluice.bench.redis="redis://127.0.0.1:$PORT" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
      -cp "$cp$JAR" io.sluice.benchmarks.QuietRoundTrip $ARGS 2>"$OUT/$1-$2.err" \
    | grep -E '^(RATE|CPU) ' | sed "s/^/$1 $2 /" | tee -a "$OUT/rates"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then run A "$r"; run B "$r"; else run B "$r"; run A "$r"; fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$OUT/rates" <<'PY'
import sys, statistics
from collections import defaultdict
rates = defaultdict(dict)  # (measure, system, threads) -> {(side, round): value}
for line in open(sys.argv[1]):
    side, rnd, measure, system, threads, value = line.split()
    rates[(measure, system, int(threads))][(side, int(rnd))] = float(value)
names = {'RATE': 'decisions/s', 'CPU': 'JVM CPU µs per decision'}
for (measure, system, threads), v in sorted(rates.items(), key=lambda kv: (kv[0][0] != 'RATE', kv[0][1], kv[0][2])):
    if (system, threads) == min((s, t) for m, s, t in rates if m == measure):
        print(f"\n| {names[measure]}: system | threads | A | B | B / A (range) | rounds |\n|---|---|---|---|---|---|")
    rounds = sorted({r for _, r in v if ('A', r) in v and ('B', r) in v})
    ratios = [v[('B', r)] / v[('A', r)] for r in rounds]
    a = statistics.median(v[('A', r)] for r in rounds)
    b = statistics.median(v[('B', r)] for r in rounds)
    print(f"| {system} | {threads} | {a:,.1f} | {b:,.1f} | **{statistics.median(ratios):.3f}×** ({min(ratios):.3f}–{max(ratios):.3f}) | {len(rounds)} |")
PY
