package io.sluice.redisson;

import io.sluice.spi.Entry;
import io.sluice.spi.Algorithm;
import io.sluice.spi.RateOutcome;
import io.sluice.spi.RateRequest;
import io.sluice.spi.RateUsage;
import io.sluice.spi.RequestRefusedException;
import org.redisson.api.RScript;
import org.redisson.client.RedisException;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.regex.Pattern;

/**
 * Sends a lane's decisions to Redis: each algorithm's {@link DecisionScript}, alone or wrapped by {@code batch.lua},
 * with the arguments of every request and prefetch of the call, and hands each unit its answers or its failure (a
 * request Redis refused is that request's {@link RequestRefusedException}). Thread-safe.
 */
final class DecisionCalls {
    /** Error codes that say something about Redis (memory, state, topology, access), not about one request. */
    private static final Pattern REDIS_CONDITION = Pattern.compile(
            "\\b(OOM|BUSY|READONLY|LOADING|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|NOPERM|NOSCRIPT|WRONGTYPE|CROSSSLOT|MOVED|ASK"
                    + "|EXECABORT|NOREPLICAS|MISCONF)\\b");

    private final ScriptRunner scripts;
    private final Clock clock;
    /** When a decision call's caller gives up on it, in Redis's time, for the script to take nothing after. */
    private final CallExpiry expiry;
    /** Each algorithm's decision script, on the backend's time base. */
    private final Map<Algorithm, DecisionScript> deciders = new EnumMap<>(Algorithm.class);
    /** The same inside {@code block.lua}, for the requests of rules with a block. */
    private final Map<Algorithm, BlockScript> blocking = new EnumMap<>(Algorithm.class);

    /**
     * @param clock      the caller's clock: a log's time, and every script's under a test ({@code callerTime})
     * @param callerTime whether the scripts on Redis time take {@code clock}'s instead (tests only)
     */
    DecisionCalls(RScript scripts, Clock clock, boolean callerTime, CallExpiry expiry) {
        this.scripts = new ScriptRunner(scripts);
        this.clock = clock;
        this.expiry = expiry;
        for (Algorithm a : Algorithm.values()) {
            deciders.put(a, DecisionScript.of(a, callerTime));
            blocking.put(a, new BlockScript(deciders.get(a), callerTime));
        }
    }

    /** The decision script of {@code algorithm}. */
    DecisionScript script(Algorithm algorithm) {
        return deciders.get(algorithm);
    }

    /** The script of {@code algorithm} inside {@code block.lua}. */
    BlockScript blocking(Algorithm algorithm) {
        return blocking.get(algorithm);
    }

    /** The script that decides {@code r}: its algorithm's, inside the block when its rule has one. */
    private DecisionScript script(RateRequest r) {
        return r.blocks() ? blocking(r.algorithm()) : script(r.algorithm());
    }

    /** What {@code r}'s key would answer now, taking nothing ({@code r} as {@code RateUsage.peekOf} has it). */
    CompletionStage<RateUsage> peek(RateRequest r) {
        BlockScript script = blocking(r.algorithm());
        String now = Long.toString(clock.millis());
        CompletionStage<List<Object>> answer = scripts.run(r.key(), script.one(), script.keys(r),
                script.peekArguments(r, now));
        return answer.thenApply(v -> RateUsage.of(script.outcome(r, v, 0), script.blockedMillis(v, 0)));
    }

    /**
     * One lane's decisions (one key's, or several keys' of one slot) in one script call. A lone request runs the
     * script as it is; more run it wrapped by {@code batch.lua}, which takes runs of identical requests (a hot key's
     * burst) as their arguments once and a count. Each unit gets its answers, or its failure alone when a decision
     * of it failed inside Redis; the stage fails when the call itself did. A call that takes permits expires when its
     * caller gives up on it ({@link CallExpiry}): run later, it takes nothing; hand-backs and settlements never expire.
     */
    CompletionStage<Void> send(List<DecisionLanes.Unit> units) {
        RateRequest first = units.get(0).first();
        DecisionScript decider = script(first);
        String now = Long.toString(clock.millis());
        boolean alone = units.size() == 1 && units.get(0).ahead() == null && units.get(0).requests().size() == 1;
        Object[] argv;
        List<Object> keys;
        // Each request's entry id (a log's), as the script logs it: the id argument, ':' and its place in a run of several.
        int unique = decider.uniqueArgument();
        List<String[]> entries = unique == 0 ? null : new ArrayList<>(units.size());
        if (alone) {
            String[] one = units.get(0).arguments(decider, first, now);
            argv = one;
            keys = decider.keys(first);
            if (entries != null) entries.add(new String[] {one[unique - 1]});
        } else {
            keys = new ArrayList<>();
            List<Object> args = new ArrayList<>(decider.batchHeader());
            // A log takes the caller's time: one time for the whole call, as calls at one instant (batch.lua then
            // answers a repeated rejection without walking the log again).
            for (int u = 0; u < units.size(); u++) {
                DecisionLanes.Unit unit = units.get(u);
                List<RateRequest> requests = unit.requests();
                keys.addAll(decider.keys(unit.first()));
                String[] ids = entries == null ? null : new String[requests.size()];
                for (int i = 0, run; i < requests.size(); i += run) {
                    RateRequest r = requests.get(i);
                    run = 1;
                    while (i + run < requests.size() && requests.get(i + run).equals(r)) run++;
                    args.add(Integer.toString(u + 1));
                    args.add(Integer.toString(run));
                    String[] one = unit.arguments(decider, r, now);
                    args.addAll(Arrays.asList(one));
                    if (ids != null) for (int k = 0; k < run; k++) ids[i + k] = entryId(one[unique - 1], run, k);
                }
                if (entries != null) entries.add(ids);
                DecisionLanes.Ahead ahead = unit.ahead();
                if (ahead != null) {
                    // One decision for batch.lua: the script takes up to the count itself and answers once.
                    args.add(Integer.toString(u + 1));
                    args.add("1");
                    String[] one = decider.prefetchArguments(ahead, now);
                    ahead.sentAt().set(Long.parseLong(now));
                    args.addAll(Arrays.asList(one));
                }
            }
            argv = args.toArray();
        }
        boolean expires = units.stream().allMatch(u -> u.mode().equals(DecisionScript.CONSUME));
        long sentNanos = System.nanoTime();
        if (expires) {
            argv = Arrays.copyOf(argv, argv.length + 1);
            argv[argv.length - 1] = expiry.argument();
        }
        CompletionStage<List<Object>> result = scripts.run(first.key(), decider.forCall(alone, expires), keys, argv);
        CompletableFuture<Void> ended = new CompletableFuture<>();
        result.whenComplete((v, e) -> {
            if (e != null) {
                if (expires && refusedAsLate(e)) expiry.refused(sentNanos);
                Throwable failure = refusedRequest(first.key(), e);
                for (DecisionLanes.Unit u : units) u.answers().completeExceptionally(failure);
                // Redis answered a request it refused: the lane's next call goes as after any answer.
                if (failure instanceof RequestRefusedException) ended.complete(null);
                else ended.completeExceptionally(e);
                return;
            }
            // The lane's next call goes first: Redis works on it while this thread hands these answers out.
            ended.complete(null);
            try {
                answer(units, v, decider, entries);
            } catch (RuntimeException unexpected) {
                // An answer of another shape (a proxy in front of Redis, a script of another version): no caller waits for ever.
                for (DecisionLanes.Unit u : units) u.answers().completeExceptionally(unexpected);
            }
        });
        return ended;
    }

    /** Whether Redis ran the call after its expiry ({@code expiry.lua}), taking nothing. */
    private static boolean refusedAsLate(Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        String message = cause.getMessage();
        return cause instanceof RedisException && message != null && message.startsWith(CallExpiry.REFUSED);
    }

    /**
     * The entry id the script logs decision {@code k} (0-based) of a run of {@code run} identical requests under: the
     * run's id, suffixed by its place when the run has several (rate.lua, batch.lua and block.lua agree on it).
     */
    static String entryId(String runId, int run, int k) {
        return run == 1 ? runId : runId + ':' + (k + 1);
    }

    /**
     * Each unit's answers from one call's flattened answers, or its failure when a decision of it failed in Redis; an
     * admitted request's answer carries its log entry's id ({@code entries}: per unit, per request; null when the
     * script keeps no entries).
     */
    private static void answer(List<DecisionLanes.Unit> units, List<Object> v, DecisionScript decider, List<String[]> entries) {
        int step = decider.answerSize();
        int at = 0;
        for (int n = 0; n < units.size(); n++) {
            DecisionLanes.Unit u = units.get(n);
            String[] ids = entries == null ? null : entries.get(n);
            List<RateOutcome> answers = new ArrayList<>(u.answerCount());
            String failure = null;
            for (int i = 0; i < u.answerCount(); i++) {
                boolean prefetch = i == u.requests().size();
                RateRequest r = prefetch ? u.ahead().request() : u.requests().get(i);
                if (v.get(at) instanceof String message) {
                    failure = message;
                } else if (failure == null && prefetch) {
                    // A prefetch answers how many it took where a decision answers whether it was allowed.
                    u.ahead().taken().set(DecisionScript.taken(v, at));
                    u.ahead().endsIn().set(decider.stockEndsIn(v, at));
                    RateOutcome taken = DecisionScript.prefetched(v, at);
                    answers.add(taken.allowed() ? taken.withEntry(decider.stockEntry(v, at)) : taken);
                } else if (failure == null) {
                    RateOutcome o = decider.outcome(r, v, at);
                    answers.add(ids != null && o.allowed() ? o.withEntry(new Entry.LogEntry(ids[i])) : o);
                }
                at += step;
            }
            if (failure == null) u.answers().complete(answers);
            else if (causedByRequest(failure)) u.answers().completeExceptionally(refused(u.first().key(), failure));
            else u.answers().completeExceptionally(new RedisException("rate script failed on " + u.first().key() + ": " + failure));
        }
    }

    /**
     * Whether a decision script's error is one its own request caused: Redis's generic {@code ERR} (a number it cannot
     * take, such as a TTL out of range) or a Lua runtime error. An error with a code of its own ({@code OOM},
     * {@code BUSY}, {@code READONLY}, {@code LOADING}, {@code NOSCRIPT}, {@code CLUSTERDOWN}, {@code WRONGTYPE},
     * {@code NOPERM}...) or about permissions says something about Redis, not about the request.
     */
    static boolean causedByRequest(String error) {
        String e = error.strip();
        // Redis 6 wraps any error raised in a script in "ERR Error running script ...": look for the codes inside too.
        if (REDIS_CONDITION.matcher(e).find() || e.contains("permission") || e.contains("can't run this command")) return false;
        return e.startsWith("ERR ") || e.startsWith("user_script:") || e.startsWith("@user_script");
    }

    /**
     * A failed script call as the caller sees it: {@link RequestRefusedException} when Redis answered with an error
     * the script's own request caused while it ran (the error names the script), else the failure as it is.
     */
    private static Throwable refusedRequest(String key, Throwable e) {
        Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        String message = cause.getMessage();
        if (cause.getClass() != RedisException.class || message == null || !message.contains("script")) return e;
        return causedByRequest(message) ? refused(key, message) : e;
    }

    /** The request's error, with Redis's message up to where Redisson adds the connection and the arguments. */
    private static RequestRefusedException refused(String key, String error) {
        int end = error.indexOf(". channel:");
        return new RequestRefusedException("rate script refused a request on " + key + ": "
                + (end < 0 ? error : error.substring(0, end)).strip());
    }
}
