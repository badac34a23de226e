#!/usr/bin/env bash
# The wrk benchmark in one command (BENCHMARKS.md, "HTTP: stock Tomcat 11 and embedded Jetty 12 under wrk"):
# finds or installs wrk, builds the benchmarks jar with a stock Tomcat 11 from Maven Central, the WARs' jars
# and async-profiler (profile -Pwrk), then runs io.sluice.benchmarks.wrk.WrkBenchmark, which starts its own
# Redis, Tomcat and Jetty on 127.0.0.1, drives them with wrk, stops them all and prints markdown tables. The
# tables, a CSV of every round and the profile step's flame graphs go to benchmarks/target/wrk/results-<time>/
# (git-ignored: results are quoted in BENCHMARKS.md and docs/benchmarks/, never committed as files).
#
#   benchmarks/wrk/run.sh                          # the short default (about 5 minutes)
#   benchmarks/wrk/run.sh --seconds 8              # the issue's 3 rounds of 8 s (about 15 minutes)
#   MAVEN_OFFLINE=1 benchmarks/wrk/run.sh ...      # build with mvn -o
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v wrk >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "wrk not found: installing Debian's wrk package"
    export DEBIAN_FRONTEND=noninteractive
    if ! apt-get install -y -q wrk </dev/null; then
      apt-get update -q </dev/null && apt-get install -y -q wrk </dev/null \
        || { echo "SKIPPED: could not install wrk with apt-get"; exit 0; }
    fi
  else
    echo "SKIPPED: wrk is not installed, and installing it needs root and apt-get (apt-get install -y wrk)"
    exit 0
  fi
fi

mvn -B -q ${MAVEN_OFFLINE:+-o} -pl benchmarks -am -DskipTests -Pwrk package </dev/null
exec java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.wrk.WrkBenchmark "$@" </dev/null
