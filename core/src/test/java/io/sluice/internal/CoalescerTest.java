package io.sluice.internal;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** One call per key in flight; what arrives meanwhile goes next, together, in order, capped; failures passed on. */
class CoalescerTest {
    private record Sent(String key, List<Integer> batch, Throwable behind, CompletableFuture<Throwable> call) {
    }

    private final List<Sent> sent = new CopyOnWriteArrayList<>();

    private CompletionStage<Throwable> dispatch(String key, List<Integer> batch, Throwable behind) {
        Sent s = new Sent(key, List.copyOf(batch), behind, new CompletableFuture<>());
        sent.add(s);
        return s.call();
    }

    @Test
    void anIdleKeyIsSentAtOnceAndWhatArrivesMeanwhileGoesNextInOrderCapped() {
        Coalescer<Integer> c = new Coalescer<>(3, this::dispatch);
        c.submit("a", 1);
        c.submit("b", 100);
        assertThat(sent).extracting(Sent::batch).containsExactly(List.of(1), List.of(100));
        for (int i = 2; i <= 6; i++) c.submit("a", i);
        assertThat(sent).hasSize(2);
        sent.get(0).call().complete(null);
        assertThat(sent.get(2).batch()).containsExactly(2, 3, 4);
        assertThat(sent.get(2).behind()).isNull();
        sent.get(2).call().complete(null);
        assertThat(sent.get(3).batch()).containsExactly(5, 6);
        sent.get(3).call().complete(null);
        assertThat(c.keysInFlight()).as("only b").isEqualTo(1);
        sent.get(1).call().complete(null);
        assertThat(c.keysInFlight()).isZero();
        c.submit("a", 7);
        assertThat(sent.get(4).batch()).as("idle again: sent at once").containsExactly(7);
    }

    @Test
    void theBatchBehindAFailedCallLearnsItsFailureAndAFreshCallDoesNot() {
        Coalescer<Integer> c = new Coalescer<>(10, this::dispatch);
        c.submit("k", 1);
        c.submit("k", 2);
        IllegalStateException down = new IllegalStateException("down");
        sent.get(0).call().complete(down);
        assertThat(sent.get(1).behind()).isSameAs(down);
        sent.get(1).call().complete(null);
        c.submit("k", 3);
        assertThat(sent.get(2).behind()).isNull();
    }

    @Test
    void aDispatchThatThrowsOrAnswersAtOnceNeverWedgesItsKey() {
        List<List<Integer>> seen = new ArrayList<>();
        Coalescer<Integer> c = new Coalescer<>(10, (key, batch, behind) -> {
            seen.add(List.copyOf(batch));
            if (batch.contains(1)) throw new IllegalStateException("boom");
            return CompletableFuture.completedFuture(null);
        });
        c.submit("k", 1);
        c.submit("k", 2);
        assertThat(seen).containsExactly(List.of(1), List.of(2));
        assertThat(c.keysInFlight()).isZero();
    }
}
