package io.sluice.engine.prefetch;

import io.sluice.engine.EngineScheduler;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * Every stock taken, in the order its hold ends, and the periodic sweep over those that have ended (no walk of every
 * key). Thread-safe.
 */
final class HoldQueue {
    /**
     * How often ended holds are handed back when no request of their key comes to do it: often, so that hand-backs
     * go a few at a time instead of in bursts that Redis would make decisions wait behind.
     */
    static final long SWEEP_MILLIS = 10;

    /** A stock in the order its hold ends ({@code seq} keeps equal ends apart), and the slot it is kept in. */
    record Held(long until, long seq, String key, KeySlot slot, Stock stock) implements Comparable<Held> {
        @Override
        public int compareTo(Held o) {
            int c = Long.compare(until, o.until);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final EngineScheduler scheduler;
    private final Runnable sweep;
    private final PriorityBlockingQueue<Held> holds = new PriorityBlockingQueue<>();
    private final AtomicLong order = new AtomicLong();
    private final AtomicBoolean sweeping = new AtomicBoolean();

    /** {@code sweep} runs every {@link #SWEEP_MILLIS} on {@code scheduler} from the first stock on. */
    HoldQueue(EngineScheduler scheduler, Runnable sweep) {
        this.scheduler = scheduler;
        this.sweep = sweep;
    }

    /** Puts {@code stock} in the sweep's order (once it is in its slot). */
    void add(String key, KeySlot slot, Stock stock) {
        holds.add(new Held(stock.until, order.incrementAndGet(), key, slot, stock));
        sweepSoon();
    }

    private void sweepSoon() {
        if (sweeping.compareAndSet(false, true)) {
            try {
                scheduler.withFixedDelay(sweep, SWEEP_MILLIS, SWEEP_MILLIS);
            } catch (RuntimeException closing) {
                sweeping.set(false);
            }
        }
    }

    /**
     * Takes out, in order, every stock whose hold has ended by {@code now} and gives it to {@code ended}; those it
     * answers false for (not handed back yet) are queued again.
     */
    void endedBy(long now, Predicate<Held> ended) {
        List<Held> later = new ArrayList<>();
        for (Held h = holds.peek(); h != null && h.until() <= now; h = holds.peek()) {
            h = holds.poll();
            if (h == null) break;
            if (h.until() > now) {
                // Another sweep (a test's, beside the scheduler's) took the one we saw.
                holds.add(h);
                break;
            }
            if (!ended.test(h)) later.add(h);
        }
        holds.addAll(later);
    }

    /** When the first hold still queued ends, on the ticker; {@link Long#MAX_VALUE} when none is. */
    long nextEnd() {
        Held h = holds.peek();
        return h == null ? Long.MAX_VALUE : h.until();
    }

    void clear() {
        holds.clear();
    }
}
