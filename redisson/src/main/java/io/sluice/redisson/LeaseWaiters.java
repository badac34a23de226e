package io.sluice.redisson;

import io.sluice.spi.LeaseOutcome;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * This server's requests waiting for a concurrency permit ({@code wait > 0}), per semaphore key, and their wake-ups.
 * Each waiter has its own limit (its plan's: one counter per key, a limit per plan), so Redisson's waiting acquire,
 * which reads one free count for everyone, cannot judge it. Here each waiter tries the acquire script under its own
 * limit: when it starts waiting (once subscribed, so no release between its first try and the subscription is
 * missed), whenever a release or a reclaimed lease tells how many leases are still held (the waiters in order whose
 * limit leaves room are woken, as many as the room of each allows), when the earliest lease expires, every
 * {@link #POLL_MILLIS} when nothing woke it (a lost wake-up, a Redis that lost its state), and once more when its wait
 * ends. A try still unanswered after {@link #POLL_MILLIS} (sent as Redis went down: the client answers it only at its
 * own timeout) does not hold the waiter up: the next try goes anyway, under the same permit id. An acquire the engine
 * gave up on before it became a waiter (its first try still in flight) never becomes one. Thread-safe.
 */
final class LeaseWaiters {
    /** One try of the acquire script under the waiter's own limit and permit id. */
    interface Attempt {
        CompletionStage<Answer> tryNow();

        /**
         * Gives back the permit a try took after its waiter had finished without one: a try stuck in a stalled Redis
         * that Redis ran once a permit had freed, after the waiter's wait ended (what Redis did late is Sluice's: no
         * request holds, renews or releases that permit).
         */
        default void giveBack() {
        }
    }

    /**
     * An acquire script's answer.
     *
     * @param outcome        the permit, or none
     * @param earliestExpiry when (on the lease clock, ms) the first held lease expires; negative for none known
     */
    record Answer(LeaseOutcome outcome, long earliestExpiry) {
    }

    /** Subscribes to a key's wake-up channel; the answer is the handle that unsubscribes, once subscribed. */
    interface Channels {
        CompletionStage<Runnable> subscribe(String channel, LongConsumer held);
    }

    /** A retry earlier than this after the previous one is not scheduled by lease expiry (clock steps, skew). */
    private static final long MIN_RETRY_MILLIS = 10;
    /**
     * How often a waiter tries again when nothing wakes it. Pub/sub delivers at most once: a wake-up published while
     * the subscription is re-established (a reconnect, a Redis restart, a failover) is lost, and a Redis that lost its
     * state frees every permit without a release to announce it. A waiter costs one script call this often.
     */
    static final long POLL_MILLIS = 1_000;

    private final Channels channels;
    private final Supplier<Long> leaseClock;
    private final Map<String, KeyWaiters> byKey = new HashMap<>(); // guarded by itself
    /**
     * The permit ids of acquires whose first try is in flight, and whether the engine gave up on each meanwhile
     * (guarded by {@link #byKey}).
     */
    private final Map<String, Boolean> firstTries = new HashMap<>();

    private final long pollMillis;

    LeaseWaiters(Channels channels, Supplier<Long> leaseClock) {
        this(channels, leaseClock, POLL_MILLIS);
    }

    /** For tests: waiters that try again every {@code pollMillis} when nothing wakes them. */
    LeaseWaiters(Channels channels, Supplier<Long> leaseClock, long pollMillis) {
        this.channels = channels;
        this.leaseClock = leaseClock;
        this.pollMillis = pollMillis;
    }

    /** The waiters of one key, in arrival order, and the key's subscription. */
    private final class KeyWaiters {
        final String key;
        final List<Waiter> queue = new ArrayList<>();
        CompletableFuture<Runnable> subscription;

        KeyWaiters(String key) {
            this.key = key;
        }

        /** Leases still held after a release: wakes, in order, the waiters whose limit leaves room. */
        void held(long held) {
            List<Waiter> woken = new ArrayList<>();
            synchronized (byKey) {
                for (Waiter w : queue) if (held + woken.size() < w.limit) woken.add(w);
            }
            woken.forEach(Waiter::tryNow);
        }
    }

    /** One waiting request. Its fields are guarded by the waiter itself. */
    private final class Waiter {
        final KeyWaiters key;
        final int limit;
        /** The permit id its tries take the permit under, the engine's. */
        final String permitId;
        final Attempt attempt;
        final long endNanos;
        final CompletableFuture<LeaseOutcome> result = new CompletableFuture<>();
        boolean trying;
        /** The latest try's number: an answer of an earlier one, stuck past a poll, is late. */
        long tries;
        /** When (System.nanoTime) the latest try was sent. */
        long triedAtNanos;
        boolean again;
        boolean lastTry;
        /** The lease expiry a retry is scheduled for (one timer per expiry, however many tries saw it). */
        long retryAt = -1;
        /** Whether a poll ({@link #pollMillis}) is scheduled: one at a time, however many tries failed. */
        boolean polling;

        Waiter(KeyWaiters key, int limit, String permitId, Attempt attempt, long endNanos) {
            this.key = key;
            this.limit = limit;
            this.permitId = permitId;
            this.attempt = attempt;
            this.endNanos = endNanos;
        }

        void tryNow() {
            long number;
            synchronized (this) {
                if (result.isDone()) return;
                // A try unanswered for a poll is stuck (sent as Redis went down, its connection lost under it): the
                // next goes anyway, under the same permit id, which Redis holds once however many tries reach it.
                if (trying && System.nanoTime() - triedAtNanos < TimeUnit.MILLISECONDS.toNanos(pollMillis)) {
                    again = true;
                    return;
                }
                trying = true;
                number = ++tries;
                triedAtNanos = System.nanoTime();
            }
            CompletionStage<Answer> tried;
            try {
                tried = attempt.tryNow();
            } catch (RuntimeException e) {
                tried = CompletableFuture.failedFuture(e);
            }
            tried.whenComplete((a, failure) -> tried(number, a, failure));
            unlessAnswered(number);
        }

        /** Tries again if try {@code number} is still unanswered after a poll, before the wait ends (issue 21). */
        private void unlessAnswered(long number) {
            long left = TimeUnit.NANOSECONDS.toMillis(endNanos - System.nanoTime());
            if (pollMillis >= left) return;
            after(pollMillis, () -> {
                synchronized (this) {
                    if (!trying || tries != number) return;
                }
                tryNow();
            });
        }

        private void tried(long number, Answer a, Throwable failure) {
            boolean retry = false;
            boolean end = false;
            boolean late;
            synchronized (this) {
                late = number != tries;
                if (!late) {
                    trying = false;
                    retry = again;
                    again = false;
                    end = lastTry && !retry;
                }
            }
            if (late) {
                // A stuck try answered after a later one was sent: a permit it took is the waiter's (the same id),
                // anything else the later try answers; past a wait that ended without one, it goes back.
                if (failure == null && a.outcome().acquired() && !finish(a.outcome(), null) && endedWithout()) attempt.giveBack();
                return;
            }
            if (failure != null) {
                finish(null, failure);
            } else if (a.outcome().acquired()) {
                finish(a.outcome(), null);
            } else if (retry) {
                tryNow();
            } else if (end) {
                finish(a.outcome(), null);
            } else {
                retryAtExpiry(a.earliestExpiry());
                poll();
            }
        }

        /** Nothing wakes a waiter when a lease expires: it tries again then itself (if before its wait ends). */
        private void retryAtExpiry(long expiry) {
            synchronized (this) {
                if (expiry < 0 || expiry == retryAt) return;
                retryAt = expiry;
            }
            long in = Math.max(MIN_RETRY_MILLIS, expiry - leaseClock.get());
            long left = TimeUnit.NANOSECONDS.toMillis(endNanos - System.nanoTime());
            if (in < left) after(in, this::tryNow);
        }

        /** Tries again after {@link #pollMillis} (if before its wait ends), in case no wake-up reaches it. */
        private void poll() {
            synchronized (this) {
                if (polling) return;
                polling = true;
            }
            long left = TimeUnit.NANOSECONDS.toMillis(endNanos - System.nanoTime());
            if (pollMillis >= left) return;
            after(pollMillis, () -> {
                synchronized (this) {
                    polling = false;
                }
                tryNow();
            });
        }

        /** The wait is over: one last try, so a permit freed at its very end is not missed. */
        void waitEnded() {
            synchronized (this) {
                lastTry = true;
            }
            tryNow();
        }

        /** Ends the waiter with {@code outcome} or {@code failure}; false when it had ended already. */
        private boolean finish(LeaseOutcome outcome, Throwable failure) {
            boolean first = failure == null ? result.complete(outcome) : result.completeExceptionally(failure);
            if (first) leave(this);
            return first;
        }

        /**
         * Whether the waiter ended without a permit: its wait ran out. (Given up on by the engine, it ended in a
         * cancellation, and the engine's release of its id takes back what a late try took.)
         */
        private boolean endedWithout() {
            return result.isDone() && !result.isCompletedExceptionally() && !result.join().acquired();
        }
    }

    /**
     * Tries once with {@code first} (which may wait for the connection), then, without a permit, waits as
     * {@link #await} does, trying with {@code attempt}; unless the engine gave up on {@code permitId} before that first
     * try answered (its deadline passed while Redis was slow, frozen or not connected yet): then the answer is a
     * {@link CancellationException}. A waiter under an id given up on would poll for its whole wait, kept from a permit
     * only by the release's tombstone, and take one once Redis lost that tombstone (a restart with empty state): a
     * permit no request holds, renews or releases (issue 21, seed 1527577941).
     */
    CompletionStage<LeaseOutcome> tryThenAwait(String key, String channel, int limit, long waitMillis, String permitId,
                                               Attempt first, Attempt attempt) {
        synchronized (byKey) {
            firstTries.put(permitId, false);
        }
        CompletionStage<Answer> tried;
        try {
            tried = first.tryNow();
        } catch (RuntimeException e) {
            tried = CompletableFuture.failedFuture(e);
        }
        return tried.handle((answer, failure) -> {
            // await takes the id off the first tries itself, in the same step as it queues the waiter.
            if (failure == null && !answer.outcome().acquired()) return await(key, channel, limit, waitMillis, permitId, attempt);
            synchronized (byKey) {
                firstTries.remove(permitId);
            }
            return failure == null ? CompletableFuture.completedFuture(answer.outcome())
                    : CompletableFuture.<LeaseOutcome>failedFuture(failure);
        }).thenCompose(Function.identity());
    }

    /**
     * Waits up to {@code waitMillis} for a permit under {@code limit} and {@code permitId}, trying with {@code attempt};
     * the answer is the permit, or none when the wait ended without one.
     */
    CompletionStage<LeaseOutcome> await(String key, String channel, int limit, long waitMillis, String permitId, Attempt attempt) {
        KeyWaiters k;
        Waiter w;
        CompletableFuture<Runnable> subscription;
        synchronized (byKey) {
            if (Boolean.TRUE.equals(firstTries.remove(permitId))) return CompletableFuture.failedFuture(cancelled());
            k = byKey.computeIfAbsent(key, KeyWaiters::new);
            w = new Waiter(k, limit, permitId, attempt, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis));
            k.queue.add(w);
            if (k.subscription == null) {
                KeyWaiters subscriber = k;
                k.subscription = channels.subscribe(channel, subscriber::held).toCompletableFuture();
            }
            subscription = k.subscription;
        }
        after(waitMillis, w::waitEnded);
        subscription.whenComplete((unsubscribe, e) -> {
            if (e != null) w.finish(null, e);
            else w.tryNow();
        });
        return w.result;
    }

    /**
     * The engine gave up on the permit id a waiter of {@code key} waits under (its deadline passed first): the waiter
     * leaves. Left in the queue, it would still be woken first when a permit frees, take the room of the waiters behind
     * it, and take nothing (its id is released), so that none of them is woken until its own wait ends.
     */
    void givenUp(String key, String permitId) {
        Waiter given = null;
        synchronized (byKey) {
            // Not a waiter yet: it will not become one when its first try answers.
            if (firstTries.replace(permitId, true) != null) return;
            KeyWaiters k = byKey.get(key);
            if (k != null) {
                for (Waiter w : k.queue) {
                    if (w.permitId.equals(permitId)) given = w;
                }
            }
        }
        if (given != null) given.finish(null, cancelled());
    }

    /** The answer of an acquire the engine gave up on. */
    private static CancellationException cancelled() {
        return new CancellationException("the engine gave up on this permit");
    }

    /** A waiter that is done leaves its key; the last one of a key unsubscribes. */
    private void leave(Waiter w) {
        CompletableFuture<Runnable> subscription = null;
        synchronized (byKey) {
            KeyWaiters k = w.key;
            k.queue.remove(w);
            if (k.queue.isEmpty() && byKey.get(k.key) == k) {
                byKey.remove(k.key);
                subscription = k.subscription;
            }
        }
        if (subscription != null) subscription.thenAccept(Runnable::run);
    }

    /** Waiters of a key now, for tests. */
    int waiting(String key) {
        synchronized (byKey) {
            KeyWaiters k = byKey.get(key);
            return k == null ? 0 : k.queue.size();
        }
    }

    /** Waiters still waiting (their answer not given yet), over every key, for tests. */
    int waiting() {
        int n = 0;
        synchronized (byKey) {
            for (KeyWaiters k : byKey.values()) {
                for (Waiter w : k.queue) if (!w.result.isDone()) n++;
            }
        }
        return n;
    }

    private static void after(long millis, Runnable task) {
        Executor later = CompletableFuture.delayedExecutor(Math.max(0, millis), TimeUnit.MILLISECONDS);
        later.execute(task);
    }
}
