package io.sluice.engine;

import io.sluice.Sluice;
import io.sluice.internal.Log;
import io.sluice.rule.Durations;
import io.sluice.spi.Connecting;
import io.sluice.spi.LimiterBackend;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** {@code sluice.await-backend}: holds a starting application until the backend's first connection, or the wait's end. */
public final class BackendStartup {
    private static final Log LOG = Log.of(Sluice.class);
    /** While start-up waits for the backend, a failed connection attempt is followed by another this often. */
    private static final long AWAIT_RETRY_MILLIS = 1_000;

    private BackendStartup() {
    }

    /**
     * Blocks until the backend's first connection, or until the wait is over, then serves anyway. The wait is real
     * time on this JVM's monotonic clock (not the injected ticker, which a test may have stopped): it bounds how long
     * a deployment blocks.
     */
    public static void await(LimiterBackend backend, Duration await) {
        // A backend without a connection of its own (an in-JVM store) is there from the start.
        if (await.isZero() || !(backend instanceof Connecting connecting) || connecting.connected()) return;
        long started = System.nanoTime();
        long deadline = started + await.toNanos();
        CompletableFuture<Void> first = connecting.firstConnection().toCompletableFuture();
        // connected() starts another attempt when the last one failed; the future tells at once when one succeeds.
        while (!connecting.connected()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                LOG.warn("Sluice started without its backend: no connection to Redis within sluice.await-backend={};"
                        + " until it connects, each rule follows its on-backend-failure", Durations.format(await));
                return;
            }
            try {
                first.get(Math.min(left, TimeUnit.MILLISECONDS.toNanos(AWAIT_RETRY_MILLIS)), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                // Not yet: ask again, which retries a failed attempt.
            } catch (ExecutionException e) {
                return; // closed meanwhile
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                LOG.warn("Sluice stopped waiting for its backend (interrupted); serving anyway");
                return;
            }
        }
        LOG.info("Sluice connected to its backend after {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }
}
