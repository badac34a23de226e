package io.sluice.redisson;

import io.sluice.spi.Entry;
import io.sluice.spi.Algorithm;
import io.sluice.spi.Prefetch;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;

import java.util.List;

/**
 * A rate algorithm's decision script, as it is (one request a call) and wrapped to decide several ({@link
 * LuaScript#batched}): its text, the arguments of one request, and the reading of one answer. Every answer has the
 * same count of numbers, so a call's answers are read one after another. Thread-safe (immutable).
 */
abstract class DecisionScript {
    /** The scripts' "use Redis TIME" argument: production never passes a time. */
    static final String REDIS_TIME = "";
    /** A decision's mode: take permits, hand them back, or take them whatever is left (a settlement). */
    static final String CONSUME = "0";
    static final String REFUND = "1";
    static final String CHARGE = "2";
    /** The scripts' prefetch size of a decision that is none. */
    static final String NO_PREFETCH = "0";

    private final ScriptText one;
    private final ScriptText many;
    /** The same, opened by {@code expiry.lua}: a decision call takes an expiry as its last argument. */
    private final ScriptText oneExpiring;
    private final ScriptText manyExpiring;
    private final int argumentsPerRequest;
    private final int keysPerRequest;
    private final int answerSize;
    private final int uniqueArgument;
    private final List<Object> batchHeader;

    /**
     * @param arguments      arguments per request
     * @param keys           keys per request
     * @param answerSize     numbers per answer
     * @param uniqueArgument which argument is unique to each request (a log entry's id), 0 for none
     * @param decidesRuns    whether the script decides a run of identical requests itself (reading and writing its
     *                       state once), where its decision costs several Redis commands
     * @param files          the script's files, shared openings first
     */
    DecisionScript(int arguments, int keys, int answerSize, int uniqueArgument, boolean decidesRuns, String... files) {
        this(LuaScript.of(files[0], List.of(files).subList(1, files.length).toArray(String[]::new)), arguments, keys,
                answerSize, uniqueArgument, decidesRuns);
    }

    /** A script of this whole {@code text}; the other parameters as above. */
    DecisionScript(String text, int arguments, int keys, int answerSize, int uniqueArgument, boolean decidesRuns) {
        this.one = ScriptText.of(text);
        this.many = ScriptText.of(LuaScript.batchedText(text));
        this.oneExpiring = ScriptText.of(LuaScript.expiring(one.text()));
        this.manyExpiring = ScriptText.of(LuaScript.expiring(many.text()));
        this.argumentsPerRequest = arguments;
        this.keysPerRequest = keys;
        this.answerSize = answerSize;
        this.uniqueArgument = uniqueArgument;
        // The header batch.lua reads the script's shape by.
        this.batchHeader = List.of(Integer.toString(arguments), Integer.toString(uniqueArgument), Integer.toString(keys),
                Integer.toString(answerSize), decidesRuns ? "1" : "0");
    }

    /** The script of {@code algorithm}, its time taken from the caller ({@code callerTime}, tests) or from Redis. */
    static DecisionScript of(Algorithm algorithm, boolean callerTime) {
        return switch (algorithm) {
            case SLIDING_LOG -> new SlidingLogScript(callerTime);
            case TOKEN_BUCKET -> new TokenBucketScript(callerTime);
            case LEAKY_BUCKET -> new LeakyBucketScript(callerTime);
            case FIXED_WINDOW -> new WindowScript(callerTime, "rate/fixed-window.lua");
            case SLIDING_WINDOW -> new WindowScript(callerTime, "rate/sliding-window.lua");
        };
    }

    /** Arguments per request. */
    int argumentCount() {
        return argumentsPerRequest;
    }

    /** Keys per request. */
    int keyCount() {
        return keysPerRequest;
    }

    /** Which argument is unique to each request, 0 for none. */
    int uniqueArgument() {
        return uniqueArgument;
    }

    /** The script for one request. */
    ScriptText one() {
        return one;
    }

    /**
     * The script of a call: {@link #one} for a lone request, else wrapped by {@code batch.lua}; when {@code expiring},
     * opened by {@code expiry.lua}, taking as its last argument the Redis time after which it acts on nothing
     * ({@link CallExpiry}).
     */
    ScriptText forCall(boolean alone, boolean expiring) {
        if (expiring) return alone ? oneExpiring : manyExpiring;
        return alone ? one : many;
    }

    /** Numbers in one answer. */
    int answerSize() {
        return answerSize;
    }

    /** What {@code batch.lua} needs to know of the script, ahead of the requests. */
    List<Object> batchHeader() {
        return batchHeader;
    }

    /** A decision's keys. */
    List<Object> keys(RateRequest r) {
        return List.of(r.key());
    }

    /**
     * One request's arguments.
     *
     * @param mode {@link #CONSUME}, {@link #REFUND} or {@link #CHARGE}
     * @param now  the caller's time (ms), which only a log and a test's run take
     */
    abstract String[] arguments(RateRequest r, String mode, String now);

    /**
     * A refund's arguments: {@code r}'s permits back to where the admitted answer said they are kept ({@code entry},
     * {@link RateOutcome#entry()}; null when not known). A script that keeps no such place gives back as any refund.
     */
    String[] refundArguments(RateRequest r, Entry entry, String now) {
        return arguments(r, REFUND, now);
    }

    /**
     * A prefetch's arguments: up to {@code ahead.count()} permits of cost 1, under its id. The leaky bucket takes
     * nothing ahead.
     */
    String[] prefetchArguments(DecisionLanes.Ahead ahead, String now) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " takes nothing ahead");
    }

    /** The answer of request {@code r}, at {@code at} in a call's answers. */
    abstract RateOutcome outcome(RateRequest r, List<Object> answers, int at);

    /**
     * A hand-back of the stock {@code stockId} lent by this script's key: up to {@code r.cost()} of its permits back,
     * once; a tombstone for {@code tombstoneMillis} when Redis has not lent it (yet). Only a token bucket and a window
     * counter lend stocks (a log's is an entry, handed back by {@code return-log.lua}).
     */
    String[] handBackArguments(RateRequest r, String stockId, String now, long tombstoneMillis) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " lends no stock");
    }

    /**
     * How long (ms from the script's decision) the stock of the prefetch answered at {@code at} may be handed out,
     * whatever the hold: {@link Prefetch#NO_END} but for a window counter, whose stock ends with its window.
     */
    long stockEndsIn(List<Object> answers, int at) {
        return Prefetch.NO_END;
    }

    /**
     * Where the stock of the prefetch answered at {@code at} is counted, for a give-back of a permit it paid: null but
     * for a window counter, the window (its index) that counted it.
     */
    Entry.WindowIndex stockEntry(List<Object> answers, int at) {
        return null;
    }

    /** A prefetch's answer, at {@code at}: how many it took, then what was left, the reset and the retry-after. */
    static long taken(List<Object> answers, int at) {
        return number(answers, at);
    }

    /** A prefetch's answer as an outcome: allowed when it took any. */
    static RateOutcome prefetched(List<Object> answers, int at) {
        return new RateOutcome(number(answers, at) > 0, number(answers, at + 1), number(answers, at + 2), number(answers, at + 3));
    }

    static long number(List<Object> answers, int at) {
        return (Long) answers.get(at);
    }

    /** The scripts on Redis time take now (or Redis TIME) and the period first. */
    static String time(boolean callerTime, String now) {
        return callerTime ? now : REDIS_TIME;
    }

    /** The six numbers of a script on Redis time: allowed, remaining, reset, retry-after, delay, over the limit. */
    static RateOutcome sixNumbers(List<Object> v, int at) {
        return new RateOutcome(number(v, at) == 1L, number(v, at + 1), number(v, at + 2), number(v, at + 3),
                number(v, at + 4), number(v, at + 5) == 1L);
    }
}
