-- wrk script for scripts/bench.sh.
--
-- BENCH_REQUEST=graphql (default): POST a small GraphQL query as JSON
--                                   (BENCH_BODY, when set, is the JSON body instead).
-- BENCH_REQUEST=get:                plain GET of the URL's path (health checks).
-- BENCH_ACCEPT_ENCODING=br:         send it as Accept-Encoding (empty: none).
-- BENCH_DELAY_MS=N:                 each connection waits N ms before each request
--                                   (a fixed rate, for scripts/bench-sizing.sh).
--
-- The request is set at load time (no request() function), so wrk builds it
-- once and sends the same bytes every time: the client costs as little CPU as
-- possible, which matters on a 2-core machine shared with the servers.
--
-- done() prints one machine-readable line that bench.sh parses:
--   BENCH requests=N duration_us=N p50_us=N p99_us=N ... status=N timeout=N
-- (status counts answers with an HTTP status > 399).

local kind = os.getenv("BENCH_REQUEST") or "graphql"

if kind == "graphql" then
   wrk.method = "POST"
   wrk.body = os.getenv("BENCH_BODY") or '{"query":"query Hello { hello }","operationName":"Hello"}'
   wrk.headers["Content-Type"] = "application/json"
   wrk.headers["Accept"] = "application/json"
   local accept_encoding = os.getenv("BENCH_ACCEPT_ENCODING") or ""
   if accept_encoding ~= "" then
      wrk.headers["Accept-Encoding"] = accept_encoding
   end
elseif kind == "get" then
   wrk.method = "GET"
else
   error("BENCH_REQUEST must be graphql or get, not " .. kind)
end

local delay_ms = tonumber(os.getenv("BENCH_DELAY_MS") or "")
if delay_ms then
   function delay()
      return delay_ms
   end
end

function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      "BENCH requests=%d duration_us=%d bytes=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d mean_us=%.1f "
         .. "connect=%d read=%d write=%d status=%d timeout=%d\n",
      summary.requests, summary.duration, summary.bytes,
      latency:percentile(50), latency:percentile(90), latency:percentile(99),
      latency.max, latency.mean,
      e.connect, e.read, e.write, e.status, e.timeout))
end
