package io.sluice.engine.prefetch;

import io.sluice.engine.EngineScheduler;
import io.sluice.memory.InMemoryBackend;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleParser;
import io.sluice.spi.Prefetch;
import io.sluice.spi.RateRequest;
import io.sluice.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The prefetcher's calls on an in-memory backend that scripts the Redis ones operation for operation. */
class PrefetcherTest {
    private static final long PERIOD_MS = 1_000;
    /** A window's start, so that the test places its requests in windows. */
    private final MutableClock clock = new MutableClock(1_000 * PERIOD_MS);
    private final InMemoryBackend backend = new InMemoryBackend(clock);
    private final EngineScheduler scheduler = new EngineScheduler();
    private final Prefetcher prefetcher = new Prefetcher(backend, clock, scheduler, key -> { }, () -> 1);

    @AfterEach
    void close() {
        prefetcher.close();
        scheduler.close();
        backend.close();
    }

    /**
     * Issue 26: a busy {@code sliding-window} of {@code 1000/1s} whose previous window is full frees a permit every
     * millisecond, and its stocks end when the next one frees (so that a stock-paid request has the {@code Remaining}
     * Redis would answer): a stock of 10 taken half-way through the window may be handed out for 1 ms, against a hold
     * of 10. It lands all but spent and goes back unused, its permits out of every server's reach meanwhile (a global
     * {@code 10000/1s} of three servers under overload admitted 61 % of its limit). So under {@code auto} such a call
     * comes short, as one that brought fewer permits than it asked, and the key goes without a stock for a hold.
     */
    @Test
    void aStockThatEndsBeforeAQuarterOfItsHoldLeavesTheKeyWithoutOneForAHold() {
        Rule rule = RuleParser.parse(Map.of("sluice.rules.r.rate", "1000/1s", "sluice.rules.r.algorithm", "sliding-window"))
                .get("r").orElseThrow();
        Duration hold = rule.ratePolicy().prefetchHold();
        assertThat(hold).isEqualTo(Duration.ofMillis(10));
        RateRequest request = rule.ratePolicy().request("{k}", rule.rate().orElseThrow(), 1);
        for (int i = 0; i < 1_000; i++) backend.tryConsume(request).toCompletableFuture().join();
        clock.advance(Duration.ofMillis(PERIOD_MS + PERIOD_MS / 2));
        for (int i = 0; i < 4; i++) prefetcher.arrived(rule, request);
        long ahead = prefetcher.ahead(rule, request);
        assertThat(ahead).as("a busy key: twice its demand of 4 a hold").isEqualTo(8);

        assertThat(prefetcher.startFetch(request.key())).isTrue();
        Prefetch p = prefetcher.fetch(rule, request, ahead, hold).toCompletableFuture().join();
        assertThat(p.taken()).as("all it asked").isEqualTo(ahead);
        assertThat(p.endsInMillis()).as("until the next permit frees").isEqualTo(1);
        assertThat(prefetcher.ahead(rule, request)).as("without a stock for a hold").isZero();
        clock.advance(hold);
        assertThat(prefetcher.ahead(rule, request)).as("a hold later").isPositive();
    }
}
