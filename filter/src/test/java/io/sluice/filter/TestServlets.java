package io.sluice.filter;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import java.io.IOException;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The protected resources of the HTTP tests, instrumented with a gauge of work in flight. */
final class TestServlets {
    private TestServlets() {
    }

    /** Work in flight across every container of this JVM, its peak, and a gate that holds work until opened. */
    static final class Gauge {
        static final AtomicInteger inFlight = new AtomicInteger();
        static final AtomicInteger peak = new AtomicInteger();
        static final AtomicInteger entered = new AtomicInteger();
        static volatile CountDownLatch gate = new CountDownLatch(0);

        static void reset() {
            inFlight.set(0);
            peak.set(0);
            entered.set(0);
            gate = new CountDownLatch(1);
        }

        static void enter() {
            entered.incrementAndGet();
            int now = inFlight.incrementAndGet();
            peak.accumulateAndGet(now, Math::max);
        }

        static void awaitGate() {
            try {
                if (!gate.await(30, TimeUnit.SECONDS)) throw new IllegalStateException("gate never opened");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        static void leave() {
            inFlight.decrementAndGet();
        }
    }

    static final class Ok extends HttpServlet {
        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.setContentType("text/plain");
            resp.getWriter().write("ok");
        }
    }

    /** Holds the request until the gate opens. */
    static final class Slow extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            Gauge.enter();
            try {
                Gauge.awaitGate();
                resp.getWriter().write("done");
            } finally {
                Gauge.leave();
            }
        }
    }

    /** Frees the container thread at once and completes on another thread when the gate opens. */
    static final class AsyncSlow extends HttpServlet {
        private final ExecutorService workers = Executors.newCachedThreadPool();

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            Gauge.enter();
            AsyncContext async = req.startAsync();
            async.setTimeout(60_000);
            workers.execute(() -> {
                try {
                    Gauge.awaitGate();
                    async.getResponse().getWriter().write("done");
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                } finally {
                    Gauge.leave();
                    async.complete();
                }
            });
        }

        @Override
        public void destroy() {
            workers.shutdownNow();
        }
    }

    static final class Boom extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws ServletException {
            throw new ServletException("boom");
        }
    }

    /** Forwards inside the application, so the filter sees the same request twice if it lets itself. */
    static final class Forward extends HttpServlet {
        @Override
        protected void service(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
            req.getRequestDispatcher("/once/target").forward(req, resp);
        }
    }

    /**
     * For app servers in separate JVMs ({@link AppServerMain}): appends {@code B|E <request id> <wall-clock
     * micros>} to the file named by the system property {@code sluice.test.intervals} when the work begins and
     * ends, so the test can merge the intervals of every process. Holds {@code ?ms=} milliseconds, or with
     * {@code ?gate} until the file named by {@code sluice.test.gate} exists.
     */
    static final class Recorded extends HttpServlet {
        private static final java.util.concurrent.atomic.AtomicLong ids = new java.util.concurrent.atomic.AtomicLong();

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long id = ids.incrementAndGet();
            record("B", id);
            try {
                if (req.getParameter("gate") != null) {
                    java.nio.file.Path gate = java.nio.file.Path.of(System.getProperty("sluice.test.gate"));
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                    while (!java.nio.file.Files.exists(gate) && System.nanoTime() < deadline) {
                        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // polling a file gate
                    }
                } else {
                    java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(Long.parseLong(req.getParameter("ms"))));
                }
                resp.getWriter().write("done");
            } finally {
                record("E", id);
            }
        }

        private static synchronized void record(String what, long id) throws IOException {
            java.time.Instant now = java.time.Clock.systemUTC().instant();
            long micros = now.getEpochSecond() * 1_000_000 + now.getNano() / 1_000;
            java.nio.file.Files.writeString(java.nio.file.Path.of(System.getProperty("sluice.test.intervals")),
                    what + " " + id + " " + micros + "\n", java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        }
    }

    /** Counts the requests that reach it and the dispatcher types it sees (an admitted request must see REQUEST). */
    static final class Probe extends HttpServlet {
        static final AtomicInteger calls = new AtomicInteger();
        static final java.util.Queue<DispatcherType> dispatches = new java.util.concurrent.ConcurrentLinkedQueue<>();

        static void reset() {
            calls.set(0);
            dispatches.clear();
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            calls.incrementAndGet();
            dispatches.add(req.getDispatcherType());
            resp.setContentType("text/plain");
            resp.getWriter().write("probe");
        }
    }

    /**
     * Streams one byte every {@link #STEP_MS} for {@code ?ms=} milliseconds, flushing each, so a client that went
     * away shows as a broken pipe within a step or two. Records when each stream ends, however it ends.
     */
    static final class Stream extends HttpServlet {
        static final long STEP_MS = 100;
        static final AtomicInteger started = new AtomicInteger();
        static final AtomicInteger ended = new AtomicInteger();
        static final AtomicInteger broken = new AtomicInteger();

        static void reset() {
            started.set(0);
            ended.set(0);
            broken.set(0);
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            started.incrementAndGet();
            try {
                stream(resp, Long.parseLong(req.getParameter("ms")));
            } finally {
                ended.incrementAndGet();
            }
        }

        static void stream(HttpServletResponse resp, long ms) throws IOException {
            resp.setContentType("text/plain");
            var out = resp.getOutputStream();
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
            try {
                while (System.nanoTime() < end) {
                    out.write('.');
                    out.flush();
                    java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(STEP_MS));
                }
            } catch (IOException e) {
                broken.incrementAndGet();
                throw e;
            }
        }
    }

    /** As {@link Stream}, from a thread of the application's own after {@code startAsync}. */
    static final class AsyncStream extends HttpServlet {
        private final ExecutorService workers = Executors.newCachedThreadPool();

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            Stream.started.incrementAndGet();
            long ms = Long.parseLong(req.getParameter("ms"));
            AsyncContext async = req.startAsync();
            async.setTimeout(60_000);
            workers.execute(() -> {
                try {
                    Stream.stream((HttpServletResponse) async.getResponse(), ms);
                } catch (IOException | RuntimeException e) {
                    // the client went away: what an application does is end the request
                } finally {
                    Stream.ended.incrementAndGet();
                    try {
                        async.complete();
                    } catch (IllegalStateException ended) {
                        // Tomcat ends an async request itself when its client goes away; so may the application.
                    }
                }
            });
        }

        @Override
        public void destroy() {
            workers.shutdownNow();
        }
    }

    static Map<String, HttpServlet> all() {
        return Map.ofEntries(
                Map.entry("/api/posts", new Ok()),
                Map.entry("/alg/*", new Ok()),
                Map.entry("/dry", new Ok()),
                Map.entry("/open", new Ok()),
                Map.entry("/slow", new Slow()),
                Map.entry("/waiting", new Slow()),
                Map.entry("/async", new AsyncSlow()),
                Map.entry("/boom", new Boom()),
                Map.entry("/once/forward", new Forward()),
                Map.entry("/once/target", new Ok()),
                Map.entry("/recorded", new Recorded()),
                Map.entry("/m", new Probe()),
                Map.entry("/stream", new Stream()),
                Map.entry("/astream", new AsyncStream()),
                Map.entry("/wstream", new Stream()),
                Map.entry("/plans/*", new Ok()),
                Map.entry("/audience/*", new Ok()));
    }
}
