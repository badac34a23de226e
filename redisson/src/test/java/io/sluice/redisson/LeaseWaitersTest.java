package io.sluice.redisson;

import io.sluice.spi.LeaseOutcome;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which of a key's waiters a wake-up message (the leases still held) sends to try again: in arrival order, those
 * whose own limit leaves room, as many as the room allows; the last waiter of a key unsubscribes. The channel and
 * the acquire script are stand-ins (pure logic); each waiter's wait and poll are an hour, so no timer takes part
 * (but in the test of the poll itself).
 */
class LeaseWaitersTest {
    private static final long HOUR = 3_600_000;

    /** One subscription, with its listener and whether it was ended. */
    private static final class Channel {
        LongConsumer listener;
        final AtomicInteger subscriptions = new AtomicInteger();
        final AtomicInteger unsubscribed = new AtomicInteger();
    }

    /** A waiter's tries: each answered by the test, not acquired unless it says so. */
    private static final class Tries implements LeaseWaiters.Attempt {
        final List<CompletableFuture<LeaseWaiters.Answer>> made = new ArrayList<>();
        /** Completes at the second try. */
        final CompletableFuture<Void> secondTry = new CompletableFuture<>();

        @Override
        public synchronized CompletionStage<LeaseWaiters.Answer> tryNow() {
            CompletableFuture<LeaseWaiters.Answer> f = new CompletableFuture<>();
            made.add(f);
            if (made.size() == 2) secondTry.complete(null);
            return f;
        }

        synchronized int count() {
            return made.size();
        }

        synchronized void refuseLast() {
            made.get(made.size() - 1).complete(new LeaseWaiters.Answer(new LeaseOutcome(null, 0), -1));
        }

        synchronized void grantLast(String id) {
            made.get(made.size() - 1).complete(new LeaseWaiters.Answer(new LeaseOutcome(id, 0), -1));
        }

        /** Permits given back because a try took them after the wait ended without one. */
        final AtomicInteger givenBack = new AtomicInteger();

        @Override
        public void giveBack() {
            givenBack.incrementAndGet();
        }
    }

    private static LeaseWaiters waiters(Channel channel) {
        return new LeaseWaiters((name, held) -> {
            channel.subscriptions.incrementAndGet();
            channel.listener = held;
            return CompletableFuture.completedFuture(channel.unsubscribed::incrementAndGet);
        }, () -> 0L, HOUR);
    }

    @Test
    void aMessageWakesTheWaitersWhoseLimitLeavesRoomInArrivalOrder() {
        Channel channel = new Channel();
        LeaseWaiters waiters = waiters(channel);
        Tries free1 = new Tries();
        Tries free2 = new Tries();
        Tries none = new Tries();
        Tries pro = new Tries();
        CompletionStage<LeaseOutcome> first = waiters.await("k", "c", 1, HOUR, id(1), free1);
        waiters.await("k", "c", 1, HOUR, id(2), free2);
        waiters.await("k", "c", 4, HOUR, id(3), none);
        waiters.await("k", "c", 6, HOUR, id(4), pro);
        assertThat(channel.subscriptions).hasValue(1);
        // Each tried once when subscribed, and found no room.
        for (Tries t : List.of(free1, free2, none, pro)) {
            assertThat(t.count()).isEqualTo(1);
            t.refuseLast();
        }

        channel.listener.accept(2); // 2 held: room under 4 and 6, none under 1
        assertThat(List.of(free1.count(), free2.count(), none.count(), pro.count())).containsExactly(1, 1, 2, 2);
        none.refuseLast();
        pro.refuseLast();

        channel.listener.accept(5); // room for one under 6 only
        assertThat(List.of(free1.count(), free2.count(), none.count(), pro.count())).containsExactly(1, 1, 2, 3);
        pro.refuseLast();

        channel.listener.accept(0); // one of each limit's room, in arrival order: the first free, then none (2nd), pro (3rd)
        assertThat(List.of(free1.count(), free2.count(), none.count(), pro.count())).containsExactly(2, 1, 3, 4);
        free1.grantLast("0123456789abcdef0123456789abcdef");
        assertThat(first.toCompletableFuture().join().permitId()).isEqualTo("0123456789abcdef0123456789abcdef");
        assertThat(waiters.waiting("k")).isEqualTo(3);
        assertThat(channel.unsubscribed).hasValue(0);
    }

    @Test
    void aMessageDuringATryMakesOneMoreTryAndTheLastWaiterUnsubscribes() {
        Channel channel = new Channel();
        LeaseWaiters waiters = waiters(channel);
        Tries only = new Tries();
        CompletionStage<LeaseOutcome> result = waiters.await("k", "c", 1, HOUR, id(5), only);
        assertThat(only.count()).isEqualTo(1);
        channel.listener.accept(0); // while the first try is under way
        channel.listener.accept(0);
        assertThat(only.count()).isEqualTo(1);
        only.refuseLast();
        assertThat(only.count()).as("one more try, for both messages").isEqualTo(2);
        only.grantLast("00000000000000000000000000000001");
        assertThat(result.toCompletableFuture().join().acquired()).isTrue();
        assertThat(waiters.waiting("k")).isZero();
        assertThat(channel.unsubscribed).hasValue(1);
    }

    /**
     * A waiter the engine gave up on (its deadline passed before the wait ended; its id is released) leaves at once:
     * left first in the queue, it would be the one woken when a permit frees, and the waiter behind it never.
     */
    @Test
    void aWaiterGivenUpOnLeavesSoThatTheNextIsWoken() {
        Channel channel = new Channel();
        LeaseWaiters waiters = waiters(channel);
        Tries givenUp = new Tries();
        Tries next = new Tries();
        CompletionStage<LeaseOutcome> first = waiters.await("k", "c", 1, HOUR, id(1), givenUp);
        CompletionStage<LeaseOutcome> second = waiters.await("k", "c", 1, HOUR, id(2), next);
        givenUp.refuseLast();
        next.refuseLast();

        waiters.givenUp("k", id(1));
        assertThat(first.toCompletableFuture()).isCompletedExceptionally();
        assertThat(waiters.waiting("k")).isEqualTo(1);

        channel.listener.accept(0); // the one permit frees: the waiter still waiting is the one woken
        assertThat(List.of(givenUp.count(), next.count())).containsExactly(1, 2);
        next.grantLast(id(2));
        assertThat(second.toCompletableFuture().join().permitId()).isEqualTo(id(2));
        assertThat(channel.unsubscribed).hasValue(1);
    }

    /**
     * An acquire the engine gave up on while its first try was still in flight (a frozen Redis) does not become a
     * waiter when that try finds no room: queued, it polled under the id given up on for its whole wait (IT seed
     * 1527577941, where a Redis restarted empty since then granted it a permit no request held). One given up on once
     * waiting leaves as before, and one whose first try takes the permit keeps it (the engine releases it).
     */
    @Test
    void anAcquireGivenUpOnDuringItsFirstTryNeverWaits() {
        Channel channel = new Channel();
        LeaseWaiters waiters = waiters(channel);
        Tries givenUp = new Tries();
        CompletionStage<LeaseOutcome> result = waiters.tryThenAwait("k", "c", 1, HOUR, id(1), givenUp, givenUp);
        waiters.givenUp("k", id(1));
        givenUp.refuseLast();
        assertThat(result.toCompletableFuture()).isCompletedExceptionally();
        assertThat(givenUp.count()).as("tries").isEqualTo(1);
        assertThat(channel.subscriptions).as("subscriptions").hasValue(0);
        assertThat(waiters.waiting("k")).isZero();

        Tries waiting = new Tries();
        CompletionStage<LeaseOutcome> waited = waiters.tryThenAwait("k", "c", 1, HOUR, id(2), waiting, waiting);
        waiting.refuseLast();
        assertThat(waiters.waiting("k")).isEqualTo(1);
        waiters.givenUp("k", id(2));
        assertThat(waited.toCompletableFuture()).isCompletedExceptionally();
        assertThat(waiters.waiting("k")).isZero();

        Tries granted = new Tries();
        CompletionStage<LeaseOutcome> taken = waiters.tryThenAwait("k", "c", 1, HOUR, id(3), granted, granted);
        granted.grantLast(id(3));
        assertThat(taken.toCompletableFuture().join().permitId()).isEqualTo(id(3));
        assertThat(channel.subscriptions).as("subscriptions").hasValue(1);
    }

    /**
     * A waiter that no message reaches (one published while the subscription was re-established, or a Redis that lost
     * its state and every permit with it, which no release announces) tries again on its own.
     */
    @Test
    void aWaiterNothingWakesTriesAgainOnItsOwn() throws Exception {
        Channel channel = new Channel();
        LeaseWaiters waiters = new LeaseWaiters((name, held) -> {
            channel.listener = held;
            return CompletableFuture.completedFuture(channel.unsubscribed::incrementAndGet);
        }, () -> 0L, 20);
        Tries tries = new Tries();
        CompletionStage<LeaseOutcome> result = waiters.await("k", "c", 1, HOUR, id(1), tries);
        tries.refuseLast();

        tries.secondTry.get(10, TimeUnit.SECONDS);
        tries.grantLast(id(1));
        assertThat(result.toCompletableFuture().join().permitId()).isEqualTo(id(1));
    }

    /**
     * A try that is never answered (sent as Redis was killed: the client fails it only at its own timeout, 10 s in the
     * IT) held its waiter up: no poll and no wake-up made another until it failed, so a waiter that a restarted Redis
     * had room for was not admitted (IT seed 859683046: "no waiter of rc|alice admitted within 5 s", 2 runs of 4). Now
     * the next try goes after a poll anyway, under the same id, and the stuck one failing late changes nothing.
     */
    @Test
    void aTryNeverAnsweredDoesNotHoldTheWaiterUp() throws Exception {
        LeaseWaiters waiters = new LeaseWaiters((name, held) -> CompletableFuture.completedFuture(() -> { }), () -> 0L, 20);
        Tries tries = new Tries();
        CompletionStage<LeaseOutcome> result = waiters.await("k", "c", 1, HOUR, id(1), tries);

        // The first try stays unanswered; a second goes on its own.
        tries.secondTry.get(10, TimeUnit.SECONDS);
        tries.grantLast(id(1));
        assertThat(result.toCompletableFuture().join().permitId()).isEqualTo(id(1));
        synchronized (tries) {
            tries.made.get(0).completeExceptionally(new IllegalStateException("the client's timeout"));
        }
        assertThat(result.toCompletableFuture().join().permitId()).isEqualTo(id(1));
    }

    /**
     * What Redis did late is ours: a try stuck in a stalled Redis past a poll, then run by Redis once a permit freed,
     * after the waiter's wait ran out without one (a later try refused, the last one at the wait's end refused too),
     * took a permit no request holds: it goes back. A late permit of a waiter that got one (the same id) does not.
     */
    @Test
    void aPermitALateTryTookAfterTheWaitEndedWithoutOneGoesBack() throws Exception {
        LeaseWaiters waiters = new LeaseWaiters((name, held) -> CompletableFuture.completedFuture(() -> { }), () -> 0L, 20);
        Tries tries = new Tries();
        CompletionStage<LeaseOutcome> result = waiters.await("k", "c", 1, 200, id(1), tries);
        tries.secondTry.get(10, TimeUnit.SECONDS);
        // The second try, and every one after it until the wait ends, refused; the first stays stuck.
        while (!result.toCompletableFuture().isDone()) {
            synchronized (tries) {
                for (int i = 1; i < tries.made.size(); i++) {
                    if (!tries.made.get(i).isDone()) tries.made.get(i).complete(new LeaseWaiters.Answer(new LeaseOutcome(null, 0), -1));
                }
            }
            Thread.sleep(5);
        }
        assertThat(result.toCompletableFuture().join().acquired()).isFalse();
        assertThat(tries.givenBack).hasValue(0);
        synchronized (tries) {
            tries.made.get(0).complete(new LeaseWaiters.Answer(new LeaseOutcome(id(1), 0), -1));
        }
        assertThat(tries.givenBack).as("the stuck try's permit").hasValue(1);

        Tries granted = new Tries();
        CompletionStage<LeaseOutcome> got = waiters.await("k", "c", 1, HOUR, id(2), granted);
        granted.secondTry.get(10, TimeUnit.SECONDS);
        granted.grantLast(id(2));
        assertThat(got.toCompletableFuture().join().permitId()).isEqualTo(id(2));
        synchronized (granted) {
            granted.made.get(0).complete(new LeaseWaiters.Answer(new LeaseOutcome(id(2), 0), -1));
        }
        assertThat(granted.givenBack).as("the same id, held once").hasValue(0);
    }

    /** A permit id as the engine makes them: 32 hex digits. */
    private static String id(int n) {
        return String.format("%032x", n);
    }
}
