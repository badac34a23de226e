package io.sluice;

import io.sluice.rule.Rule;
import io.sluice.spi.Entry;
import io.sluice.spi.RateRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import static io.sluice.CallerClockEngine.remaining;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A prefetching key's request decided in Redis without a call of the key's own (its stock call: here it waited for
 * another request's, whose stock could not pay its cost) beside a refund of the key from another thread. Unordered,
 * the refund could reach Redis first and land in Java after the decision, whose answer had counted it: the engine
 * then added it again to what it heard the key had left, and the stock-paid requests after read one permit too
 * many. On a real Redis, time injected; the gates below hold calls as a busy network would. {@code fixed-window}
 * {@code 20/1h}, {@code prefetch=4}, counting failures.
 */
class RefundBesideADecisionOnRedisTest {
    @RegisterExtension
    static final CallerClockEngine engines = new CallerClockEngine(60_000);

    /** The cost of W and X: more than a stock of the key's ever holds. */
    private static final long COSTLY = 5;

    /** {@link GatedBackend}, and a refund's answer held until {@link #refundAnswer} completes. */
    private static final class Gated extends GatedBackend {
        final CompletableFuture<Void> refundAnswer = new CompletableFuture<>();
        /** The refund as Redis answers it, once sent (null: not sent yet). */
        volatile CompletableFuture<Long> refundSent;

        Gated() {
            super(engines, COSTLY);
            // Held before Redis only: X's answer comes as Redis gives it.
            costlyAnswer.open();
        }

        @Override
        public CompletionStage<Long> refundCredited(RateRequest request, Entry entry) {
            CompletableFuture<Long> sent = super.refundCredited(request, entry).toCompletableFuture();
            refundSent = sent;
            return sent.thenCombine(refundAnswer, (credited, v) -> credited);
        }
    }

    private static Sluice sluice(Gated backend) {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.key-prefix", engines.prefix());
        p.put("sluice.backend-timeout", "30s");
        p.put("sluice.rules.r1.rate", "20/1h");
        p.put("sluice.rules.r1.algorithm", "fixed-window");
        p.put("sluice.rules.r1.prefetch", "4");
        p.put("sluice.rules.r1.count", "failure");
        return Sluice.builder().properties(p).backend(backend).clock(engines.clock()).ticker(engines.clock()).build();
    }

    private static CompletableFuture<Admission> admit(Sluice s, long cost) {
        Rule r = s.rules().get("r1").orElseThrow();
        return s.admit(List.of(r), KeySource.fixed("alice").withCost(cost)).toCompletableFuture();
    }

    /**
     * P brings the stock S0 (4). W (cost 5) hands S0 back and waits for the hand-back; so do Y (cost 1) and X (cost
     * 5). Answered, W asks for the key's call; Y and X wait for it. It brings S1 (4), which pays Y and cannot pay X: X
     * is decided in Redis, held. W's success gives W's permits back (S1 has no room for them). Then X reaches Redis,
     * and the refund's answer lands. Z, paid from S1, has what the contract leaves: P, Y, X and Z of 20, W given back:
     * 12. Before, the refund reached Redis before X and was added again once landed: 17.
     */
    @Test
    void aRefundBesideADecisionOfTheKeyCountsOnce() {
        Gated backend = new Gated();
        try (Sluice s = sluice(backend)) {
            Admission p = admit(s, 1).join();
            assertThat(remaining(p)).as("P").isEqualTo(19);
            backend.gating = true;
            CompletableFuture<Admission> w = admit(s, COSTLY);
            CompletableFuture<Admission> y = admit(s, 1);
            CompletableFuture<Admission> x = admit(s, COSTLY);
            backend.handBack.pass();
            backend.prefetch.pass();
            assertThat(remaining(w.join())).as("W").isEqualTo(14);
            assertThat(remaining(y.join())).as("Y, paid from S1").isEqualTo(13);
            assertThat(x).as("X, held before Redis").isNotDone();

            CompletableFuture<Void> wEnded = w.join().end(Ending.status(200)).toCompletableFuture();
            CompletableFuture<Long> sent = backend.refundSent;
            // Unordered with X, the refund has reached Redis already.
            if (sent != null) sent.join();
            backend.costly.complete(null);
            assertThat(x.join().allowed()).as("X").isTrue();
            backend.refundAnswer.complete(null);
            wEnded.join();

            Admission z = admit(s, 1).join();
            assertThat(z.allowed()).isTrue();
            assertThat(remaining(z)).as("Z, paid from S1").isEqualTo(12);
        }
    }
}
