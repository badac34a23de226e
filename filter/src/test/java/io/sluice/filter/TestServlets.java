package io.sluice.filter;

import jakarta.servlet.AsyncContext;
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

    static Map<String, HttpServlet> all() {
        return Map.of("/api/posts", new Ok(), "/dry", new Ok(), "/open", new Ok(),
                "/slow", new Slow(), "/waiting", new Slow(), "/async", new AsyncSlow(), "/boom", new Boom(),
                "/once/forward", new Forward(), "/once/target", new Ok(), "/recorded", new Recorded());
    }
}
