package io.sluice.memory;

import io.sluice.spi.Entry;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Each key's {@link RateModel reference model} per algorithm (every algorithm's but the sliding log's), the state of
 * {@link InMemoryBackend}'s rate rules, each used under its own lock and dropped by the sweep once idle. Times in the
 * backend's milliseconds, turned here into the models' microseconds. Thread-safe.
 */
final class KeyModels {
    /** One key's reference model, and whether the sweep has dropped it. */
    private static final class Modelled {
        final RateModel model;
        boolean dead;

        Modelled(RateModel model) {
            this.model = model;
        }
    }

    private final Map<String, Modelled> models = new ConcurrentHashMap<>();

    /**
     * {@code body} applied to the model of {@code r}'s algorithm and key, under its lock; one the sweep dropped meanwhile
     * is made again. Algorithms never share state, even under one key name.
     */
    <T> T under(RateRequest r, Function<RateModel, T> body) {
        while (true) {
            Modelled m = models.computeIfAbsent(r.algorithm().id() + "|" + r.key(), k -> new Modelled(RateModel.of(r.algorithm())));
            synchronized (m) {
                if (!m.dead) return body.apply(m.model);
            }
        }
    }

    RateOutcome consume(RateRequest r, long nowMillis) {
        long nowMicros = micros(nowMillis);
        return under(r, m -> m.consume(r, nowMicros));
    }

    /** {@code r}'s permits back to its model, where {@code entry} says they are kept (a window counter's window). */
    boolean refund(RateRequest r, Entry entry, long nowMillis) {
        long nowMicros = micros(nowMillis);
        return under(r, m -> m.refund(r, entry, nowMicros));
    }

    long refundCredited(RateRequest r, Entry entry, long nowMillis) {
        long nowMicros = micros(nowMillis);
        return under(r, m -> m.refundCredited(r, entry, nowMicros));
    }

    void charge(RateRequest r, long nowMillis) {
        long nowMicros = micros(nowMillis);
        under(r, m -> {
            m.charge(r, nowMicros);
            return null;
        });
    }

    /** Drops the key's model of {@code r}'s algorithm: a caller holding it makes a new one. */
    void forget(RateRequest r) {
        Modelled m = models.remove(r.algorithm().id() + "|" + r.key());
        if (m != null) {
            synchronized (m) {
                m.dead = true;
            }
        }
    }

    /** Drops the models idle at {@code now}. */
    void sweep(long now) {
        long nowMicros = now * 1000;
        for (Iterator<Modelled> it = models.values().iterator(); it.hasNext(); ) {
            Modelled m = it.next();
            synchronized (m) {
                if (nowMicros >= m.model.idleAtMicros()) {
                    m.dead = true;
                    it.remove();
                }
            }
        }
    }

    int size() {
        return models.size();
    }

    void clear() {
        models.clear();
    }

    static long micros(long millis) {
        return Math.multiplyExact(millis, 1000L);
    }
}
