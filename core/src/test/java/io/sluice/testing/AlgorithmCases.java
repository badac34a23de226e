package io.sluice.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The exact-count cases every adapter (the filter on each container, the CDI interceptor) runs: every rate
 * algorithm under every throttling mode, one rule of {@value #LIMIT} per day each, so nothing refills during a
 * test, and what each admitted or rejected request must carry. The counts and {@code Remaining} are exact
 * numbers. The seconds of {@code Reset} and {@code Retry-After} depend on when Redis decided, which a test over
 * real HTTP cannot inject: a {@link Range} gives the values possible for the instants the test measured around each
 * request (one value unless a measured interval straddles a second), computed from the algorithm's definition.
 */
public final class AlgorithmCases {
    /** Permits per period of every case's rule. */
    public static final int LIMIT = 4;
    /** The period of every rule: one day, so nothing refills while a test runs. */
    public static final long PERIOD_MILLIS = 86_400_000L;
    /** {@code overage} of the soft and elastic rules: 4 x 1.5 = 6 enforced. */
    public static final int OVERAGE_PERCENT = 50;
    /** What the soft and elastic rules enforce. */
    public static final int EFFECTIVE = LIMIT + LIMIT * OVERAGE_PERCENT / 100;
    /** Permits of an elastic rule's capacity rule: it lends one request, then runs out. */
    public static final int CAPACITY = 1;

    private AlgorithmCases() {
    }

    /** The throttling modes. */
    public enum Mode {
        HARD, SOFT, ELASTIC;

        public String property() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The rate algorithms as the rules file spells them. */
    public static final List<String> ALGORITHMS =
            List.of("sliding-log", "token-bucket", "leaky-bucket", "fixed-window", "sliding-window");

    /** Every algorithm under every mode it supports (a leaky bucket has no permits to lend: no elastic). */
    public static List<Case> all() {
        List<Case> out = new ArrayList<>();
        for (String a : ALGORITHMS) {
            for (Mode m : Mode.values()) {
                // A leaky bucket admits one request per pace without a queue: hard is its whole story here.
                if (a.equals("leaky-bucket") && m != Mode.HARD) continue;
                out.add(new Case(a, m));
            }
        }
        return out;
    }

    /**
     * One rule: {@code <algorithm>-<mode>}, {@value #LIMIT}/1d; soft and elastic with {@value #OVERAGE_PERCENT}%
     * overage; an elastic one borrows from {@code pool-<rule>}, a global {@value #CAPACITY}/1d sliding log.
     *
     * @param algorithm the {@code algorithm} property
     * @param mode      the {@code throttling} property
     */
    public record Case(String algorithm, Mode mode) {
        public String rule() {
            return algorithm + "-" + mode.property();
        }

        public String capacityRule() {
            return "pool-" + rule();
        }

        /**
         * The rules file lines of this case.
         *
         * @param paths the rule's {@code paths}, or null for none (the interceptor)
         * @param key   the rule's {@code key}
         */
        public List<String> properties(String paths, String key) {
            String base = "sluice.rules." + rule() + ".";
            List<String> lines = new ArrayList<>();
            if (paths != null) lines.add(base + "paths=" + paths);
            lines.add(base + "key=" + key);
            lines.add(base + "rate=" + LIMIT + "/1d");
            lines.add(base + "algorithm=" + algorithm);
            if (mode != Mode.HARD) {
                lines.add(base + "throttling=" + mode.property());
                lines.add(base + "overage=" + OVERAGE_PERCENT + "%");
            }
            if (mode == Mode.ELASTIC) {
                lines.add(base + "capacity=" + capacityRule());
                lines.add("sluice.rules." + capacityRule() + ".key=global");
                lines.add("sluice.rules." + capacityRule() + ".rate=" + CAPACITY + "/1d");
            }
            return lines;
        }

        /** How many requests of one fresh key are admitted before the first rejection. */
        public int admitted() {
            if (algorithm.equals("leaky-bucket")) return 1; // then its next slot is a pace (6 h) away
            return switch (mode) {
                case HARD -> LIMIT;
                case SOFT -> EFFECTIVE;
                case ELASTIC -> LIMIT + CAPACITY;
            };
        }

        /** {@code Remaining} after the {@code k}-th admitted request (1-based): nominal, never below 0. */
        public long remainingAfter(int k) {
            if (algorithm.equals("leaky-bucket")) return 0;
            return Math.max(0, LIMIT - k);
        }

        private long enforced() {
            return mode == Mode.HARD ? LIMIT : EFFECTIVE;
        }

        /** The seconds of {@code Reset} after the {@code k}-th request (1-based, admitted), measured by {@code t}. */
        public Range reset(int k, Times t) {
            int now = k - 1;
            return switch (algorithm) {
                // The oldest permit leaves the window a period after the first request.
                case "sliding-log" -> t.since(0, PERIOD_MILLIS, now);
                // The bucket's next token (at the nominal rate: an overage refills a bucket of its own), counted from
                // the first request; a leaky bucket's next place, at the enforced pace.
                case "token-bucket" -> t.since(0, PERIOD_MILLIS / LIMIT, now);
                case "leaky-bucket" -> t.since(0, PERIOD_MILLIS / enforced(), now);
                case "fixed-window" -> t.window(0, now);
                case "sliding-window" -> t.window(slidingWait(k, LIMIT, Math.max(0, LIMIT - k) + 1), now);
                default -> throw new IllegalArgumentException(algorithm);
            };
        }

        /** The seconds of {@code Retry-After} of the first rejection, the {@code (admitted() + 1)}-th request. */
        public Range retryAfter(Times t) {
            int k = admitted() + 1;
            int now = k - 1;
            if (mode == Mode.ELASTIC) {
                // The capacity rule's one permit leaves its window a period after it was lent; never before the reset.
                return t.since(k - 2, PERIOD_MILLIS, now).max(ownReset(k, t));
            }
            return switch (algorithm) {
                case "sliding-log" -> t.since(0, PERIOD_MILLIS, now);
                // The bucket's next token comes before the overage bucket's (half its rate here, taken later).
                case "token-bucket" -> t.since(0, PERIOD_MILLIS / LIMIT, now);
                case "leaky-bucket" -> t.since(0, PERIOD_MILLIS / enforced(), now);
                case "fixed-window" -> t.window(0, now);
                // Until one more fits under the enforced limit, never before the nominal reset.
                case "sliding-window" -> t.window(slidingWait(admitted(), enforced(), 1), now)
                        .max(t.window(slidingWait(admitted(), LIMIT, 1), now));
                default -> throw new IllegalArgumentException(algorithm);
            };
        }

        /** An elastic rule's own reset when its over-limit request was refused: as after the {@code k}-th request. */
        private Range ownReset(int k, Times t) {
            if (algorithm.equals("sliding-window")) return t.window(slidingWait(k, LIMIT, 1), k - 1);
            return reset(k, t);
        }

        /**
         * A sliding window's wait past the end of the current window (the previous one empty) until {@code need}
         * more fit under {@code cap} with {@code current} in this window: {@code period x (1 - (cap - need) / current)}.
         */
        private static long slidingWait(long current, long cap, long need) {
            return PERIOD_MILLIS - (cap - need) * PERIOD_MILLIS / current;
        }
    }

    /** Whole seconds a header may say: from {@code min} to {@code max}. */
    public record Range(long min, long max) {
        public boolean contains(long v) {
            return v >= min && v <= max;
        }

        /** The later of two instants, each known within its range. */
        public Range max(Range other) {
            return new Range(Math.max(min, other.min), Math.max(max, other.max));
        }

        /** Retry-After is at least 1. */
        public Range atLeastOne() {
            return new Range(Math.max(1, min), Math.max(1, max));
        }

        @Override
        public String toString() {
            return min == max ? Long.toString(min) : min + ".." + max;
        }
    }

    /**
     * The wall-clock instants a test measured around each of its requests: sent no earlier than {@code lo}, answered
     * no later than {@code hi}. Redis time, Redisson's clock and this JVM's are one clock on one machine. A decision
     * answered by the attack shield is computed from the previous decision and the time since, so every instant
     * may also be late by the longest measured request ({@link #slack}).
     */
    public static final class Times {
        private final List<long[]> spans = new ArrayList<>();

        /** Measures one request. */
        public <T> T measure(Supplier<T> request) {
            long lo = System.currentTimeMillis();
            T result = request.get();
            spans.add(new long[]{lo, System.currentTimeMillis()});
            return result;
        }

        private long slack() {
            return spans.stream().mapToLong(s -> s[1] - s[0]).max().orElse(0);
        }

        /** Whether every request fell in one window of the period (else window counts restart mid-test). */
        public boolean oneWindow() {
            long first = spans.get(0)[0] / PERIOD_MILLIS;
            return spans.stream().allMatch(s -> s[0] / PERIOD_MILLIS == first && (s[1] + slack()) / PERIOD_MILLIS == first);
        }

        /** Seconds until {@code millis} after request {@code from} was decided, as seen by request {@code now}. */
        Range since(int from, long millis, int now) {
            long[] f = spans.get(from);
            long[] n = spans.get(now);
            return new Range(ceilSeconds(f[0] + millis - (n[1] + slack())), ceilSeconds(f[1] + millis - n[0]));
        }

        /** Seconds until {@code extra} past the end of the current window, as seen by request {@code now}. */
        Range window(long extra, int now) {
            long[] n = spans.get(now);
            long end = (n[0] / PERIOD_MILLIS + 1) * PERIOD_MILLIS;
            return new Range(ceilSeconds(end + extra - (n[1] + slack())), ceilSeconds(end + extra - n[0]));
        }

        private static long ceilSeconds(long ms) {
            return Math.floorDiv(ms + 999, 1000);
        }
    }
}
