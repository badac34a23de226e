package io.sluice.examples.war;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The reports in the making in this application: how many now, the most at once, and a gate that holds
 * them. A report takes its hold time, or less if {@link #release()} opens the gate first, so a demo needs
 * nothing but time and a test decides exactly when the admitted reports end.
 */
public final class Workload {
    public static final Duration MAX_HOLD = Duration.ofMinutes(2);
    private static final String ATTRIBUTE = Workload.class.getName();

    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();
    private final AtomicInteger started = new AtomicInteger();
    private final AtomicInteger finished = new AtomicInteger();
    private final AtomicInteger audited = new AtomicInteger();
    private final AtomicInteger auditedAsOther = new AtomicInteger();
    private final AtomicReference<CompletableFuture<Void>> gate = new AtomicReference<>(new CompletableFuture<>());
    private final Queue<Thread> timerThreads = new ConcurrentLinkedQueue<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "report-timer");
        t.setDaemon(true);
        timerThreads.add(t);
        return t;
    });

    /** The workload of the application whose context this is; null before {@link Lifecycle} created it. */
    public static Workload of(ServletContext context) {
        return (Workload) context.getAttribute(ATTRIBUTE);
    }

    /** Starts a report; the future completes after {@code hold}, or when the gate opens if that comes first. */
    public CompletableFuture<Void> start(Duration hold) {
        started.incrementAndGet();
        peak.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        CompletableFuture<Void> done = new CompletableFuture<>();
        gate.get().thenRun(() -> done.complete(null));
        ScheduledFuture<?> timeout = timer.schedule(() -> done.complete(null), hold.toMillis(), TimeUnit.MILLISECONDS);
        done.thenRun(() -> timeout.cancel(false));
        return done;
    }

    /** Called when a report ends, before its response completes (so before its permit is returned). */
    public void finish() {
        inFlight.decrementAndGet();
        finished.incrementAndGet();
    }

    /** Ends every report started so far; later reports wait for the next release or their hold time. */
    void release() {
        gate.getAndSet(new CompletableFuture<>()).complete(null);
    }

    /** Counts a request the application's audit filter saw, and whether it came as anything but REQUEST. */
    void audit(DispatcherType type) {
        audited.incrementAndGet();
        if (type != DispatcherType.REQUEST) auditedAsOther.incrementAndGet();
    }

    /** Starts a new measurement: the peak becomes the number in flight now, the counts zero. */
    void reset() {
        started.set(0);
        finished.set(0);
        audited.set(0);
        auditedAsOther.set(0);
        peak.set(inFlight.get());
    }

    String json() {
        return "\"inFlight\":" + inFlight.get() + ",\"peak\":" + peak.get() + ",\"started\":" + started.get()
                + ",\"finished\":" + finished.get() + ",\"audited\":" + audited.get()
                + ",\"auditedAsOther\":" + auditedAsOther.get();
    }

    /** Creates the application's workload at start-up and stops its timer at shutdown. */
    public static final class Lifecycle implements ServletContextListener {
        @Override
        public void contextInitialized(ServletContextEvent event) {
            event.getServletContext().setAttribute(ATTRIBUTE, new Workload());
        }

        @Override
        public void contextDestroyed(ServletContextEvent event) {
            Workload workload = of(event.getServletContext());
            if (workload == null) return;
            workload.release();
            workload.timer.shutdownNow();
            try {
                // Ended before the container looks for threads the application left running.
                for (Thread t : workload.timerThreads) t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
