package io.sluice.engine;

import io.sluice.rule.FailurePolicy;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;
import io.sluice.rule.Settings;
import io.sluice.spi.Announcing;
import io.sluice.spi.LeaseRequest;
import io.sluice.spi.LimiterBackend;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * How many servers share each limit while the backend cannot answer ({@code on-backend-failure=local}): {@code
 * sluice.local-share} when set, else the count of live servers this server last read from the backend, where each
 * server announces itself every {@link #HEARTBEAT} while some rule is {@code local}; 1 before any count was read (a
 * server that starts while the backend is down knows of no other). Thread-safe.
 */
public final class LiveServers {
    /** How often a server announces itself. */
    static final Duration HEARTBEAT = Duration.ofSeconds(5);
    /** Heartbeats a server may miss before it no longer counts: one lost to a slow moment does not shrink the count. */
    static final int HEARTBEATS_MISSED_BEFORE_GONE = 3;
    static final Duration GONE_AFTER = HEARTBEAT.multipliedBy(HEARTBEATS_MISSED_BEFORE_GONE);
    /** The divisor before any count was read: this server alone. */
    private static final int ALONE = 1;

    /** Null for a backend no other server shares: this server is alone. */
    private final Announcing backend;
    private final String key;
    private final String serverId = LeaseRequest.newPermitId();
    private final Supplier<RuleSet> rules;
    private final AtomicBoolean announcing = new AtomicBoolean();
    /** The count last read from the backend; 0 before the first. */
    private volatile int lastSeen;

    LiveServers(LimiterBackend backend, String keyPrefix, Supplier<RuleSet> rules) {
        this.backend = backend instanceof Announcing a ? a : null;
        this.key = keyPrefix + ":servers";
        this.rules = rules;
    }

    /** Announces this server now and then every {@link #HEARTBEAT}, on the engine's thread, while it is needed. */
    void start(EngineScheduler scheduler) {
        if (backend == null) return;
        scheduler.withFixedDelay(this::heartbeat, 0, HEARTBEAT.toMillis());
    }

    /** The servers a limit is divided among now: {@code sluice.local-share}, else the count last read, else 1. */
    public int divisor() {
        int fixed = rules.get().settings().localShare();
        if (fixed != Settings.LOCAL_SHARE_FROM_BACKEND) return fixed;
        int seen = lastSeen;
        return seen > 0 ? seen : ALONE;
    }

    /**
     * The servers sharing the backend: {@code sluice.local-share} when set, else the count last read, else 1 (the
     * limit's share that {@code prefetch=auto} stocks may hold is divided among them).
     */
    public int counted() {
        return divisor();
    }

    /** The count last read from the backend, 0 before the first (for tests and monitoring). */
    int lastSeen() {
        return lastSeen;
    }

    /**
     * Announces this server and reads the count now (a heartbeat: also for tests that start several engines and need
     * each to have seen the others). A failed announcement keeps the count last read.
     */
    CompletionStage<Integer> announce() {
        if (backend == null) return CompletableFuture.completedFuture(ALONE);
        CompletionStage<Integer> count;
        try {
            count = backend.announce(key, serverId, GONE_AFTER);
        } catch (RuntimeException e) {
            count = CompletableFuture.failedFuture(e);
        }
        return count.thenApply(n -> {
            if (n > 0) lastSeen = n;
            return n;
        });
    }

    /** One heartbeat, unless none is needed (no rule is local, or the share is fixed) or the last has not answered. */
    void heartbeat() {
        if (!needed() || !announcing.compareAndSet(false, true)) return;
        announce().whenComplete((n, e) -> announcing.set(false));
    }

    /** While some rule divides by the count: a {@code local} one, or one whose stocks are sized by demand. */
    private boolean needed() {
        RuleSet set = rules.get();
        if (set.settings().localShare() != Settings.LOCAL_SHARE_FROM_BACKEND) return false;
        for (Rule r : set.all()) {
            if (r.onBackendFailure() == FailurePolicy.LOCAL || r.ratePolicy().prefetch().auto()) return true;
        }
        return false;
    }
}
