package io.sluice.testing;

import io.sluice.Admission;
import io.sluice.Decision;
import io.sluice.Sluice;
import io.sluice.rule.Rule;
import org.awaitility.Awaitility;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * Waits until a new engine decides through Redis. Its Redis connection is made in the background, and until
 * it exists decisions follow {@code on-backend-failure} once their deadline passes: on a loaded machine that can
 * take longer than a deadline, so a test counting exact outcomes waits for the connection first. Each probe
 * is a decision of the engine's first rule on a key of its own, so the test's own keys start from zero.
 */
public final class Connected {
    private static final Duration AT_MOST = Duration.ofSeconds(60);

    private Connected() {
    }

    public static void await(Sluice sluice) {
        await(sluice, sluice.rules().all().get(0).name());
    }

    /** Probes with the named rule: for tests that count the keys of the others. */
    public static void await(Sluice sluice, String ruleName) {
        Rule rule = sluice.rules().get(ruleName).orElseThrow();
        Awaitility.await("a decision through Redis (the background first connection)").atMost(AT_MOST)
                .pollInterval(Duration.ofMillis(20)).until(() -> decidedByRedis(sluice, rule));
    }

    private static boolean decidedByRedis(Sluice sluice, Rule rule) {
        String key = "connected-" + UUID.randomUUID();
        try (Admission a = sluice.admit(List.of(rule), r -> key).toCompletableFuture().join()) {
            return a.decisions().stream().allMatch(d -> d.outcome() == Decision.Outcome.DECIDED);
        }
    }
}
