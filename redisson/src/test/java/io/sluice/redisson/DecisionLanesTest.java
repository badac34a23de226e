package io.sluice.redisson;

import io.sluice.spi.Algorithm;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Which decisions share a call: keys of one algorithm and slot, while a call is in flight; never across slots. */
class DecisionLanesTest {
    private record Call(List<DecisionLanes.Unit> units, CompletableFuture<Void> ended) {
        List<String> keys() {
            return units.stream().map(u -> u.first().key()).toList();
        }
    }

    private final List<Call> calls = new CopyOnWriteArrayList<>();

    private CompletionStage<Void> send(List<DecisionLanes.Unit> units) {
        Call c = new Call(List.copyOf(units), new CompletableFuture<>());
        calls.add(c);
        return c.ended();
    }

    private static RateRequest request(Algorithm algorithm, String key) {
        return RateRequest.of(algorithm, key, 10, Duration.ofSeconds(1));
    }

    @Test
    void keysThatWaitForTheSameCallGoTogetherInTheNextOne() {
        DecisionLanes lanes = new DecisionLanes(key -> 0, "1", this::send);
        lanes.submit(List.of(request(Algorithm.SLIDING_LOG, "a")), "0");
        assertThat(calls).hasSize(1);
        lanes.submit(List.of(request(Algorithm.SLIDING_LOG, "b")), "0");
        lanes.submit(List.of(request(Algorithm.SLIDING_LOG, "c"), request(Algorithm.SLIDING_LOG, "c")), "0");
        lanes.submit(List.of(request(Algorithm.TOKEN_BUCKET, "d")), "0");
        assertThat(calls).as("another algorithm is another lane: sent at once").hasSize(2);
        assertThat(calls.get(1).keys()).containsExactly("d");
        calls.get(0).ended().complete(null);
        assertThat(calls).hasSize(3);
        assertThat(calls.get(2).keys()).as("in arrival order").containsExactly("b", "c");
        assertThat(calls.get(2).units().get(1).requests()).hasSize(2);
    }

    @Test
    void keysOfAnotherSlotNeverShareACall() {
        DecisionLanes lanes = new DecisionLanes(key -> key.startsWith("x") ? 1 : 2, "1", this::send);
        lanes.submit(List.of(request(Algorithm.FIXED_WINDOW, "x1")), "0");
        lanes.submit(List.of(request(Algorithm.FIXED_WINDOW, "y1")), "0");
        lanes.submit(List.of(request(Algorithm.FIXED_WINDOW, "x2")), "0");
        lanes.submit(List.of(request(Algorithm.FIXED_WINDOW, "y2")), "0");
        assertThat(calls).extracting(Call::keys).containsExactly(List.of("x1"), List.of("y1"));
        calls.get(0).ended().complete(null);
        calls.get(1).ended().complete(null);
        assertThat(calls).extracting(Call::keys).containsExactly(List.of("x1"), List.of("y1"), List.of("x2"), List.of("y2"));
    }

    @Test
    void withoutSlotsEveryKeyHasALaneOfItsOwn() {
        DecisionLanes lanes = new DecisionLanes(null, "1", this::send);
        lanes.submit(List.of(request(Algorithm.SLIDING_WINDOW, "a")), "0");
        lanes.submit(List.of(request(Algorithm.SLIDING_WINDOW, "b")), "0");
        assertThat(calls).extracting(Call::keys).containsExactly(List.of("a"), List.of("b"));
    }

    @Test
    void decisionsQueuedBehindAFailedCallFailWithItUnsent() {
        DecisionLanes lanes = new DecisionLanes(key -> 0, "1", this::send);
        lanes.submit(List.of(request(Algorithm.SLIDING_LOG, "a")), "0");
        CompletableFuture<List<RateOutcome>> queued =
                lanes.submit(List.of(request(Algorithm.SLIDING_LOG, "b")), "0").toCompletableFuture();
        IllegalStateException down = new IllegalStateException("Redis down");
        calls.get(0).ended().completeExceptionally(down);
        assertThat(calls).as("not sent").hasSize(1);
        assertThatThrownBy(queued::join).hasCause(down);
        lanes.submit(List.of(request(Algorithm.SLIDING_LOG, "c")), "0");
        assertThat(calls).as("an idle lane sends again").hasSize(2);
    }

    /** A prefetch's hand-backs and refills have lanes of their own, which no decision waits behind. */
    @Test
    void refundsAndRefillsHaveLanesOfTheirOwn() {
        DecisionLanes lanes = new DecisionLanes(key -> 0, "1", this::send);
        lanes.submit(List.of(request(Algorithm.TOKEN_BUCKET, "a")), "1");
        lanes.submit(List.of(request(Algorithm.TOKEN_BUCKET, "b")), "1");
        lanes.submit(List.of(request(Algorithm.TOKEN_BUCKET, "c")), "0");
        assertThat(calls).as("the decision goes at once beside the refund in flight").extracting(Call::keys)
                .containsExactly(List.of("a"), List.of("c"));
        calls.get(0).ended().complete(null);
        assertThat(calls).extracting(Call::keys).containsExactly(List.of("a"), List.of("c"), List.of("b"));
        RateRequest permit = request(Algorithm.TOKEN_BUCKET, "d");
        lanes.submit(new DecisionLanes.Unit(List.of(), "0", new DecisionLanes.Ahead(permit, 10, 0, "id", new AtomicLong(), new AtomicLong()),
                new CompletableFuture<>()));
        assertThat(calls).as("a refill goes beside the decision in flight").hasSize(4);
        assertThat(calls.get(3).units().get(0).requests()).isEmpty();
    }
}
