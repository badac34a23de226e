package io.sluice.rule;

import io.sluice.key.Exemptions;
import io.sluice.key.KeySpec;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * One named rule of the rules file: a rate, a concurrency limit, or both, and where and to whom it applies.
 * Built by {@link RuleParser}; immutable and thread-safe.
 *
 * @param name            {@code [A-Za-z0-9_-]+}, part of every Redis key of the rule
 * @param rate            the rate, if the rule limits one
 * @param concurrency     the most requests in flight for one key, if the rule limits it (0 when it does not)
 * @param lease           how long a concurrency permit outlives a dead server; renewed while the request runs
 * @param waitTime        how long a request may wait for a concurrency permit
 * @param paths           servlet URL patterns; empty when only code names the rule
 * @param methods         upper-case HTTP methods; empty for all
 * @param key             who shares a limit
 * @param onMissingKey    what happens when the key cannot be resolved
 * @param status          status code of a rejection
 * @param mode            enforce or dry-run
 * @param onBackendFailure what happens when the backend cannot answer in time
 * @param ratePolicy      how the rate counts (algorithm, throttling, costs); {@link RatePolicy#DEFAULT} without a rate
 * @param plans           per-plan limits ({@code plan}, {@code plans.<plan>.*}); {@link Plans#NONE} without plans
 * @param problemType     the {@code type} URI of a rejection's problem body: {@code problem-type}, else
 *                        {@code sluice.problem-type}, else {@code about:blank}
 * @param when            the requests the rule applies to by authentication ({@code when}); {@link When#ALWAYS} by default
 * @param exempt          the requests the rule never limits ({@code exempt}); {@link Exemptions#NONE} by default
 * @param block           {@code block}: how long a key the rule rejected stays rejected; {@link Duration#ZERO} for none
 */
public record Rule(
        String name,
        Optional<Rate> rate,
        int concurrency,
        Duration lease,
        Duration waitTime,
        List<PathPattern> paths,
        Set<String> methods,
        KeySpec key,
        MissingKeyPolicy onMissingKey,
        int status,
        Mode mode,
        FailurePolicy onBackendFailure,
        RatePolicy ratePolicy,
        Plans plans,
        String problemType,
        When when,
        Exemptions exempt,
        Duration block) {

    /** The problem type of a rule that names none: RFC 9457's default. */
    public static final String DEFAULT_PROBLEM_TYPE = "about:blank";

    public Rule {
        Objects.requireNonNull(block, "block");
        paths = List.copyOf(paths);
        methods = Set.copyOf(methods);
    }

    /** A rule for every request (no {@code when}, no {@code exempt}) without a block. */
    public Rule(String name, Optional<Rate> rate, int concurrency, Duration lease, Duration waitTime,
                List<PathPattern> paths, Set<String> methods, KeySpec key, MissingKeyPolicy onMissingKey, int status,
                Mode mode, FailurePolicy onBackendFailure, RatePolicy ratePolicy, Plans plans, String problemType) {
        this(name, rate, concurrency, lease, waitTime, paths, methods, key, onMissingKey, status, mode, onBackendFailure,
                ratePolicy, plans, problemType, When.ALWAYS, Exemptions.NONE, Duration.ZERO);
    }

    /** A rule without plans whose rejections have the default problem type. */
    public Rule(String name, Optional<Rate> rate, int concurrency, Duration lease, Duration waitTime,
                List<PathPattern> paths, Set<String> methods, KeySpec key, MissingKeyPolicy onMissingKey, int status,
                Mode mode, FailurePolicy onBackendFailure, RatePolicy ratePolicy) {
        this(name, rate, concurrency, lease, waitTime, paths, methods, key, onMissingKey, status, mode, onBackendFailure,
                ratePolicy, Plans.NONE, DEFAULT_PROBLEM_TYPE);
    }

    /** A rule counted as a hard sliding log at cost 1, as every rule was before rules had a {@link RatePolicy}. */
    public Rule(String name, Optional<Rate> rate, int concurrency, Duration lease, Duration waitTime,
                List<PathPattern> paths, Set<String> methods, KeySpec key, MissingKeyPolicy onMissingKey, int status,
                Mode mode, FailurePolicy onBackendFailure) {
        this(name, rate, concurrency, lease, waitTime, paths, methods, key, onMissingKey, status, mode, onBackendFailure,
                RatePolicy.DEFAULT);
    }

    public boolean limitsRate() {
        return rate.isPresent();
    }

    public boolean limitsConcurrency() {
        return concurrency > 0;
    }

    /** Whether a rejection by this rule blocks the key for {@link #block()}. */
    public boolean blocks() {
        return !block.isZero();
    }

    public boolean dryRun() {
        return mode == Mode.DRY_RUN;
    }

    /**
     * Whether the filter applies this rule to a request with this method and path inside the application.
     * Methods match case-insensitively, and a rule that lists {@code GET} also applies to {@code HEAD}:
     * servlets answer HEAD by running their GET handler.
     */
    public boolean matches(String method, String path) {
        if (paths.isEmpty()) return false;
        if (!methods.isEmpty() && !appliesTo(method)) return false;
        for (PathPattern p : paths) {
            if (p.matches(path)) return true;
        }
        return false;
    }

    private boolean appliesTo(String method) {
        // toUpperCase returns the same string, without copying, when it is upper case already.
        String m = method.toUpperCase(Locale.ROOT);
        return methods.contains(m) || m.equals("HEAD") && methods.contains("GET");
    }
}
