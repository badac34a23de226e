package io.sluice.engine.rate;

import io.sluice.engine.BackendGuard;
import io.sluice.engine.EngineListener;
import io.sluice.Decision;
import io.sluice.internal.Log;
import io.sluice.internal.ThrottledLog;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleParser;
import io.sluice.rule.RuleSet;
import io.sluice.testing.ManualTicker;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a rate step's unit test builds it from: a hand-moved ticker, a guard with a 100 ms deadline on it (its
 * waits fail past the deadline when the test moves the ticker and calls {@link BackendGuard#sweep}), a listener
 * recording where each decision came from, rules parsed as a rules file says them, and a step below that counts.
 */
final class RateStepFixture {
    static final Duration DEADLINE = Duration.ofMillis(100);

    final ManualTicker ticker = new ManualTicker();
    /** The source of each decision reported, in order. */
    final List<EngineListener.Source> sources = new CopyOnWriteArrayList<>();
    final EngineListener listener = new EngineListener() {
        @Override
        public void decided(Decision decision, Source source) {
            sources.add(source);
        }

        @Override
        public void backendCalled() {
        }
    };
    final BackendGuard guard = new BackendGuard(DEADLINE, ticker, listener, new ThrottledLog(Log.of(RateStepFixture.class), 10_000, ticker));

    /** The rule {@code r} of properties given as {@code "rate=2/1m"}, {@code "throttling=soft"}... */
    static Rule rule(String... properties) {
        return rules(properties).get("r").orElseThrow();
    }

    /** Rules given as {@code "r.rate=2/1m"} (names spelled out), or rule r's properties as in {@link #rule}. */
    static RuleSet rules(String... properties) {
        Map<String, String> p = new HashMap<>();
        for (String line : properties) {
            int eq = line.indexOf('=');
            String name = line.substring(0, eq);
            p.put("sluice.rules." + (name.contains(".") ? name : "r." + name), line.substring(eq + 1));
        }
        return RuleParser.parse(p);
    }

    /** A request of {@code rule} for {@code key} costing {@code cost}, its deadline from now. */
    RateAsk ask(Rule rule, String key, long cost) {
        return new RateAsk(rule, rule.ratePolicy().request("{" + key + "}", rule.rate().orElseThrow(), cost),
                rule.rate().get().permits(), ticker.nanos() + DEADLINE.toNanos());
    }

    /** Moves past the deadline and lets the guard fail what waits on it. */
    void pastDeadline() {
        ticker.advance(DEADLINE.plusMillis(1));
        guard.sweep();
    }

    /** A step below that counts its requests and allows each with 7 remaining. */
    static final class Below implements RateStep {
        final AtomicInteger calls = new AtomicInteger();

        @Override
        public CompletableFuture<Decision> decide(RateAsk ask) {
            calls.incrementAndGet();
            return CompletableFuture.completedFuture(Decision.allowed(ask.rule(), Decision.Kind.RATE, ask.limit(), 7, Duration.ZERO));
        }
    }
}
