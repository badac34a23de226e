package io.sluice.redisson;

import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code rate.lua}: a sliding log in the layout of Redisson's {@code RRateLimiter}, on the caller's clock as Redisson's
 * limiter is; a prefetch is one entry that counts from the hold's end.
 */
final class SlidingLogScript extends DecisionScript {
    /** Arguments of one request; which one is its entry's id, its entry's offset after now, and a prefetch's size. */
    private static final int ARGUMENTS = 8;
    private static final int ENTRY_ID = 3;
    private static final int ENTRY_OFFSET = 7;
    private static final int PREFETCH = 8;
    /** The offset of an entry logged now. */
    private static final String LOGGED_NOW = "0";

    private final boolean callerTime;

    SlidingLogScript(boolean callerTime) {
        super(ARGUMENTS, 3, 4, ENTRY_ID, true, "rate/rate.lua");
        this.callerTime = callerTime;
    }

    /** A log's three keys: its configuration, and Redisson's value and permits. */
    @Override
    List<Object> keys(RateRequest r) {
        String name = r.key();
        return List.of(name, RedissonNames.suffix(name, "value"), RedissonNames.suffix(name, "permits"));
    }

    @Override
    String[] arguments(RateRequest r, String mode, String now) {
        long interval = r.period().toMillis();
        long keepAlive = callerTime ? interval + RedissonBackend.CALLER_TIME_KEEP_ALIVE_MILLIS : interval;
        // Soft or elastic: the log counts up to the effective limit; the answer speaks of the nominal one.
        long limit = r.overage() ? r.effectiveLimit() : r.limit();
        return new String[] {Long.toString(r.cost()), now, randomId(), Long.toString(limit), Long.toString(interval),
                Long.toString(keepAlive), LOGGED_NOW, NO_PREFETCH};
    }

    @Override
    String[] prefetchArguments(DecisionLanes.Ahead ahead, String now) {
        String[] one = arguments(ahead.request(), CONSUME, now);
        one[ENTRY_ID - 1] = ahead.id();
        one[ENTRY_OFFSET - 1] = Long.toString(ahead.offsetMillis());
        one[PREFETCH - 1] = Long.toString(ahead.count());
        return one;
    }

    @Override
    RateOutcome outcome(RateRequest r, List<Object> v, int at) {
        RateOutcome o = new RateOutcome(number(v, at) == 1L, number(v, at + 1), number(v, at + 2), number(v, at + 3));
        if (r.overage()) {
            long extra = r.effectiveLimit() - r.limit();
            o = new RateOutcome(o.allowed(), Math.max(0, o.remaining() - extra), o.resetMillis(), o.retryAfterMillis(),
                    0, o.allowed() && o.remaining() < extra);
        }
        return neverFits(r, o);
    }

    /** A log never holds more than its limit: a cost above it can never fit (the other scripts say so themselves). */
    static RateOutcome neverFits(RateRequest r, RateOutcome o) {
        if (o.allowed() || r.cost() <= r.effectiveLimit()) return o;
        return new RateOutcome(false, o.remaining(), o.resetMillis(), RateOutcome.NEVER_FITS, 0, false);
    }

    /** A request's entry id: random, hexadecimal. */
    static String randomId() {
        byte[] id = new byte[16];
        ThreadLocalRandom.current().nextBytes(id);
        return HexFormat.of().formatHex(id);
    }
}
