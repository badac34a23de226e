package io.sluice.engine;

import io.sluice.rule.Rule;

import java.util.concurrent.CompletableFuture;

/**
 * What tests outside this package may look at inside an engine: its prefetched stocks, the key names it uses, and the
 * servers it counts for {@code on-backend-failure=local}.
 */
public final class EngineProbe {
    /** How long an open circuit waits before it lets a probe through. */
    public static final long CIRCUIT_COOL_DOWN_MILLIS = BackendGuard.COOL_DOWN_MILLIS;

    private EngineProbe() {
    }

    /** {@return done once the engine has announced itself in its backend, with the count of live servers read} */
    public static CompletableFuture<Integer> announce(Engine engine) {
        return engine.servers().announce().toCompletableFuture();
    }

    /** {@return the servers the engine divides each limit among while its backend cannot answer} */
    public static int localDivisor(Engine engine) {
        return engine.servers().divisor();
    }

    /** {@return the backend key of a rule's raw key value, as the rate path names it} */
    public static String keyOf(Engine engine, Rule rule, String raw) {
        return engine.rateDecider().keyOf(rule, raw);
    }

    /** {@return done once every call and hand-back of the rule's key has landed} */
    public static CompletableFuture<Void> settled(Engine engine, Rule rule, String raw) {
        return engine.rateDecider().prefetcher().settled(keyOf(engine, rule, raw));
    }

    /** {@return done once the stocks whose hold has ended are handed back} */
    public static CompletableFuture<Void> sweep(Engine engine) {
        return engine.rateDecider().prefetcher().sweep();
    }

    /** {@return the permits this engine holds in stock, over every key} */
    public static long held(Engine engine) {
        return engine.rateDecider().prefetcher().held();
    }

    /** {@return the ticker time at which the next stock's hold ends, or Long.MAX_VALUE with none} */
    public static long nextHoldEnd(Engine engine) {
        return engine.rateDecider().prefetcher().nextHoldEnd();
    }
}
