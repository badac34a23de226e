-- wrk script of the wrk benchmark (io.sluice.benchmarks.wrk.WrkBenchmark): every request carries
-- X-Client: client-<n>, n picked at random per request among the number of clients given after "--".
-- The requests are formatted once per thread, so the script adds next to nothing per request.

local threads = {}
local counter = 0

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  table.insert(threads, thread)
end

local requests = {}
local clients

function init(args)
  clients = tonumber(args[1] or "16")
  math.randomseed(os.time() * 1000 + (id or 0))
  for i = 1, clients do
    requests[i] = wrk.format(nil, nil, { ["X-Client"] = "client-" .. i })
  end
end

function request()
  return requests[math.random(clients)]
end

-- One line the benchmark parses.
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "sluice-wrk requests=%d duration_us=%d connect=%d read=%d write=%d status=%d timeout=%d p50_us=%d p90_us=%d p99_us=%d\n",
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99)))
end
