package io.sluice;

import io.sluice.rule.Durations;
import io.sluice.rule.RuleParser;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * One randomized run of {@link EngineMatchesModelTest}: a rule set drawn from what the parser accepts, the rule sets
 * a reload may put in effect, how many engines share the Redis, and the timed steps: requests (which engine, key,
 * plan and path), releases, clock advances, reloads and (in the {@code it} profile) faults. Printed so that a
 * person can replay it by reading.
 */
record EngineScenario(long seed, int engines, Map<String, String> rules, List<Map<String, String>> reloads,
                      List<Step> steps) {

    static final String PATH = "/api/item";
    static final String BIG = "/api/big";
    static final List<String> KEYS = List.of("alice", "bob");
    /**
     * Every caller a run may draw ({@link io.sluice.model.EngineModel#userOf}): the users of {@link #KEYS}, a user named
     * as an address, and anonymous callers from two addresses (one of them the users' own).
     */
    static final List<String> CALLERS = List.of("alice", "bob", "10.0.0.1", "anonymous@10.0.0.1", "anonymous@10.0.0.2");
    static final String WAIT = "30s";
    /** Longer than any run's time: a permit held by a request that runs never expires (renewals run on real time). */
    static final String LEASE = "1d";
    /** The most time a run moves its clock by, well inside {@link #LEASE}. */
    static final long MAX_ADVANCE_MILLIS = 12 * 3_600_000L;

    /** One step of a run. */
    sealed interface Step permits Request, Release, Advance, Reload, Freeze, Restart, Ended, SetOverride, ClearOverride {
    }

    /** Request {@code id} on engine {@code engine}. */
    record Request(int id, int engine, String key, String plan, String path) implements Step {
        @Override
        public String toString() {
            return "request #" + id + " on engine " + engine + ": key " + key + (plan == null ? "" : ", plan " + plan) + ", path " + path;
        }
    }

    /** Request {@code id} ends (its admission is closed). */
    record Release(int id) implements Step {
        @Override
        public String toString() {
            return "request #" + id + " ends";
        }
    }

    /** Request {@code id} ends with this status, its response reporting {@code reported} for settling rules (-1: none). */
    record Ended(int id, int status, long reported) implements Step {
        @Override
        public String toString() {
            return "end #" + id + " status " + status + (reported >= 0 ? " reporting " + reported : "");
        }
    }

    record Advance(long millis) implements Step {
        @Override
        public String toString() {
            return "+" + millis + " ms";
        }
    }

    /** Every engine reloads rule set {@code index} of {@link #reloads}. */
    record Reload(int index) implements Step {
        @Override
        public String toString() {
            return "reload #" + index;
        }
    }

    /** Redis stops answering while requests arrive, for longer than the deadline. */
    record Freeze(int requests) implements Step {
        @Override
        public String toString() {
            return "Redis frozen past the deadline during " + requests + " requests";
        }
    }

    /** An operator overrides one key's limit on engine {@code engine}; every engine applies it after its poll. */
    record SetOverride(int engine, String rule, String key, String limit, long ttlMillis) implements Step {
        @Override
        public String toString() {
            return "override on engine " + engine + ": rule " + rule + " key " + key + " limit " + limit + " for " + ttlMillis + " ms";
        }
    }

    /** An operator clears one key's override on engine {@code engine}; every engine applies it after its poll. */
    record ClearOverride(int engine, String rule, String key) implements Step {
        @Override
        public String toString() {
            return "clear override on engine " + engine + ": rule " + rule + " key " + key;
        }
    }

    /** Redis restarts with empty state. */
    record Restart() implements Step {
        @Override
        public String toString() {
            return "Redis restarts empty";
        }
    }

    EngineScenario withSteps(List<Step> fewer) {
        return new EngineScenario(seed, engines, rules, reloads, fewer);
    }

    /**
     * Whether the contract promises exactly the model's decisions: one engine, until Redis loses its state (a freeze
     * is decided by {@code on-backend-failure=deny}, which takes nothing, and what Redis did late is undone). An
     * elastic token bucket is held to its bounds only: the contract says what it may borrow, not which of its
     * requests go over.
     */
    boolean exact() {
        boolean elasticBucket = rules.entrySet().stream().anyMatch(e -> e.getKey().endsWith(".throttling") && e.getValue().equals("elastic")
                && "token-bucket".equals(rules.get(e.getKey().replace(".throttling", ".algorithm"))));
        return engines == 1 && !elasticBucket;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("seed " + seed + ", " + engines + " engine(s) on one Redis, rules:\n");
        new TreeMap<>(rules).forEach((k, v) -> b.append("  ").append(k).append('=').append(v).append('\n'));
        for (int i = 0; i < reloads.size(); i++) {
            b.append("reload #").append(i).append(" changes: ").append(new TreeMap<>(reloads.get(i)).entrySet().stream()
                    .filter(e -> !e.getValue().equals(rules.get(e.getKey()))).map(Map.Entry::toString)
                    .collect(Collectors.joining(", "))).append('\n');
        }
        b.append("steps (").append(steps.size()).append("):\n");
        for (int i = 0; i < steps.size(); i++) b.append(String.format("  %3d  %s%n", i, steps.get(i)));
        return b.toString();
    }

    /** What a seed draws; {@code faults} adds Redis freezes and restarts (the {@code it} profile). */
    static EngineScenario draw(long seed, int length, boolean faults) {
        SplittableRandom random = new SplittableRandom(seed);
        Theme theme = Theme.values()[(int) Math.floorMod(seed, (long) Theme.values().length)];
        Map<String, String> rules = RuleDraw.withLocalFailure(RuleDraw.valid(random, theme), seed);
        // Its own stream, so that a seed that draws no audience draws exactly what it drew before audiences existed.
        SplittableRandom audience = new SplittableRandom(seed * AudienceDraw.SALT);
        boolean audiences = AudienceDraw.draw(audience, rules);
        // Before the blocks, which a prefetching rule may not have.
        RuleDraw.windowPrefetches(rules, new SplittableRandom(seed ^ RuleDraw.WINDOW_PREFETCH_SALT));
        RuleDraw.blocks(rules, new SplittableRandom(seed ^ RuleDraw.BLOCK_SALT));
        RuleDraw.outcomes(rules, new SplittableRandom(seed ^ RuleDraw.OUTCOME_SALT));
        RuleDraw.large(rules, new SplittableRandom(seed ^ RuleDraw.LARGE_SALT));
        List<Map<String, String>> reloads = new ArrayList<>();
        for (int i = 0, n = random.nextInt(3); i < n; i++) RuleDraw.reloaded(random, rules).ifPresent(reloads::add);
        int engines = theme == Theme.SEVERAL_ENGINES || random.nextInt(4) == 0 ? 3 : 1;
        List<Step> steps = new ArrayList<>();
        int id = 0;
        List<Integer> open = new ArrayList<>();
        long advanced = 0;
        boolean plans = rules.keySet().stream().anyMatch(k -> k.contains(".plans."));
        List<Long> periods = rules.entrySet().stream().filter(e -> e.getKey().matches("sluice\\.rules\\.[^.]+\\.rate"))
                .map(e -> Durations.parse(e.getValue().split("/")[1]).orElseThrow().toMillis()).toList();
        while (steps.size() < length) {
            int r = random.nextInt(100);
            if (r < 30) {
                long millis = advance(random, periods);
                if (advanced + millis > MAX_ADVANCE_MILLIS) continue;
                advanced += millis;
                steps.add(new Advance(millis));
            } else if (r < 42 && !open.isEmpty()) {
                steps.add(ending(random, open.remove(random.nextInt(open.size()))));
            } else if (r < 45 && !reloads.isEmpty()) {
                steps.add(new Reload(random.nextInt(reloads.size())));
            } else if (r < 47 && faults) {
                steps.add(random.nextInt(4) > 0 ? new Freeze(1 + random.nextInt(3)) : new Restart());
            } else {
                // A burst: several requests of one key at one instant, as in the issue's over-admissions.
                int burst = random.nextInt(5) == 0 ? 5 + random.nextInt(20) : 1;
                String key = KEYS.get(random.nextInt(KEYS.size()));
                if (audiences) key = AudienceDraw.caller(audience, key);
                int engine = random.nextInt(engines);
                for (int i = 0; i < burst; i++) {
                    String plan = plans ? plan(random) : null;
                    String path = random.nextInt(3) == 0 ? BIG : PATH;
                    steps.add(new Request(id, engine, key, plan, path));
                    open.add(id++);
                }
            }
        }
        OverrideDraw.insert(seed, rules, engines, steps);
        return new EngineScenario(seed, engines, rules, reloads, steps);
    }

    /** How a request ends: released as it was (a third of the time), else with a status and a report for settling rules. */
    private static Step ending(SplittableRandom random, int id) {
        if (random.nextInt(3) == 0) return new Release(id);
        int status = new int[] {200, 204, 302, 401, 403, 404, 500}[random.nextInt(7)];
        long reported = switch (random.nextInt(6)) {
            case 0 -> -1;
            case 1 -> 0;
            case 2 -> 1;
            default -> random.nextInt(8);
        };
        return new Ended(id, status, reported);
    }

    private static String plan(SplittableRandom random) {
        return switch (random.nextInt(6)) {
            case 0, 1 -> null;
            case 2, 3 -> "free";
            case 4 -> "pro";
            default -> random.nextBoolean() ? "vip" : "unknown";
        };
    }

    /** A step of time: a fraction of a rule's period (so that every rule's windows are crossed), or a millisecond. */
    private static long advance(SplittableRandom random, List<Long> periods) {
        if (periods.isEmpty() || random.nextInt(6) == 0) return 1;
        double[] fractions = {0.001, 0.01, 0.095, 0.25, 0.5, 0.999, 1, 2};
        long period = periods.get(random.nextInt(periods.size()));
        return Math.max(1, Math.round(period * fractions[random.nextInt(fractions.length)]));
    }

    /**
     * Who a request is: some rules keyed {@code user|ip}, applied {@code when} anonymous or authenticated, or exempting
     * a user or an address, and callers anonymous or named as an address ({@link #CALLERS}). A third of the seeds.
     */
    static final class AudienceDraw {
        static final long SALT = 0x9E3779B97F4A7C15L;

        private AudienceDraw() {
        }

        /** Changes some rules of {@code rules}; whether the seed draws audiences at all. */
        static boolean draw(SplittableRandom random, Map<String, String> rules) {
            if (random.nextInt(3) != 0) return false;
            List<String> names = rules.keySet().stream().filter(k -> k.endsWith(".paths"))
                    .map(k -> k.substring(0, k.length() - ".paths".length())).toList();
            for (String base : names) {
                String key = rules.get(base + ".key");
                if ("user".equals(key) && random.nextInt(3) > 0) rules.put(base + ".key", "user|ip");
                int when = random.nextInt(5);
                if (when == 0) rules.put(base + ".when", "authenticated");
                if (when == 1 && !"user".equals(rules.get(base + ".key"))) rules.put(base + ".when", "anonymous");
                if (random.nextInt(2) == 0) rules.put(base + ".exempt", RuleDraw.pick(random, "user:bob", "ip:10.0.0.2", "user:bob, ip:10.0.0.2"));
            }
            if (!RuleDraw.parses(rules)) throw new IllegalStateException("an audience the parser refuses: " + rules);
            return true;
        }

        /** Half the requests of an audience seed come from a caller other than the drawn user. */
        static String caller(SplittableRandom random, String user) {
            return random.nextBoolean() ? user : CALLERS.get(2 + random.nextInt(CALLERS.size() - 2));
        }
    }

    /** What a seed stresses most (its number modulo the themes), so that a handful of seeds covers every feature. */
    enum Theme { ANY, PREFETCH, ELASTIC, CONCURRENCY_PLANS, SEVERAL_RATE_RULES, SEVERAL_ENGINES }

    /** Rule sets as properties, kept only when the real parser accepts them. */
    static final class RuleDraw {
        /** Seeds the stream {@link #withLocalFailure} draws from. */
        private static final long LOCAL_STREAM = 0x10CA1L;

        private RuleDraw() {
        }

        static Map<String, String> valid(SplittableRandom random, Theme theme) {
            for (int attempt = 0; ; attempt++) {
                Map<String, String> p = draw(random, theme);
                if (parses(p)) return p;
                if (attempt > 1000) throw new IllegalStateException("no valid rule set drawn: " + p);
            }
        }

        /**
         * Some rules decide by this server's share while Redis cannot answer ({@code on-backend-failure=local}; the
         * others follow the run's global policy). Drawn from a stream of its own, so that every seed draws the same
         * rules, requests and faults as before this property existed.
         */
        static Map<String, String> withLocalFailure(Map<String, String> rules, long seed) {
            SplittableRandom local = new SplittableRandom(seed ^ LOCAL_STREAM);
            Map<String, String> p = new TreeMap<>(rules);
            for (String k : rules.keySet()) {
                boolean limits = k.matches("sluice\\.rules\\.[^.]+\\.(rate|concurrency)");
                String base = k.substring(0, k.lastIndexOf('.') + 1);
                if (limits && !p.containsKey(base + "on-backend-failure") && local.nextInt(3) == 0) {
                    p.put(base + "on-backend-failure", "local");
                }
            }
            return parses(p) ? p : rules;
        }

        static boolean parses(Map<String, String> p) {
            try {
                RuleParser.parse(p);
                return true;
            } catch (ConfigException e) {
                return false;
            }
        }

        /** The same rules with other limits: each rate's permits halved or doubled, each concurrency one more or less. */
        static Optional<Map<String, String>> reloaded(SplittableRandom random, Map<String, String> rules) {
            Map<String, String> p = new TreeMap<>(rules);
            p.replaceAll((k, v) -> {
                if (k.matches("sluice\\.rules\\.[^.]+\\.rate") && random.nextBoolean()) {
                    String[] parts = v.split("/");
                    long permits = Long.parseLong(parts[0]);
                    permits = random.nextBoolean() ? Math.max(1, permits / 2) : permits * 2;
                    return permits + "/" + parts[1];
                }
                if (k.matches("sluice\\.rules\\.[^.]+\\.concurrency") && random.nextBoolean()) {
                    return String.valueOf(Math.max(1, Integer.parseInt(v) + (random.nextBoolean() ? 1 : -1)));
                }
                return v;
            });
            return parses(p) && !p.equals(rules) ? Optional.of(p) : Optional.empty();
        }

        private static Map<String, String> draw(SplittableRandom random, Theme theme) {
            Map<String, String> p = new TreeMap<>();
            int rates = theme == Theme.SEVERAL_RATE_RULES ? 2 + random.nextInt(2)
                    : theme == Theme.PREFETCH || theme == Theme.ELASTIC ? 1 : 1 + random.nextInt(2);
            boolean concurrency = theme == Theme.CONCURRENCY_PLANS || theme != Theme.ELASTIC && random.nextInt(10) < (theme == Theme.PREFETCH ? 2 : 4);
            boolean capacity = false;
            for (int i = 1; i <= rates; i++) {
                boolean last = i == rates && !concurrency;
                capacity |= rateRule(p, "r" + i, random, theme, last);
            }
            if (concurrency) concurrencyRule(p, "rc", random, theme);
            if (capacity) {
                String base = "sluice.rules.cap.";
                p.put(base + "key", "global");
                p.put(base + "rate", pick(random, "1", "2", "5") + "/" + pick(random, "10s", "1h"));
                p.put(base + "algorithm", pick(random, "sliding-log", "fixed-window", "token-bucket"));
            }
            return p;
        }

        /** A rate rule; whether it is elastic (and so needs the capacity rule). */
        private static boolean rateRule(Map<String, String> p, String name, SplittableRandom random, Theme theme, boolean last) {
            String base = "sluice.rules." + name + ".";
            p.put(base + "paths", "/api/*");
            p.put(base + "key", random.nextInt(10) == 0 ? "global" : "user");
            String algorithm = theme == Theme.PREFETCH ? pick(random, "sliding-log", "token-bucket", "token-bucket")
                    : pick(random, "sliding-log", "sliding-log", "token-bucket", "token-bucket", "fixed-window", "sliding-window",
                    last ? "leaky-bucket" : "token-bucket");
            p.put(base + "algorithm", algorithm);
            long permits = Long.parseLong(pick(random, "2", "3", "5", "8", "10", "20"));
            String period = pick(random, "1s", "10s", "1m", "1h");
            if (algorithm.equals("leaky-bucket")) {
                // Its admitted requests wait for their slot in real time: a pace of at most 250 ms.
                permits = 4 + random.nextInt(7);
                period = "1s";
                if (random.nextBoolean()) p.put(base + "queue", String.valueOf(random.nextInt(3)));
            }
            p.put(base + "rate", permits + "/" + period);
            if (algorithm.equals("token-bucket") && random.nextBoolean()) p.put(base + "burst", String.valueOf(1 + random.nextInt((int) permits * 2)));
            int t = random.nextInt(100);
            boolean elastic = !algorithm.equals("leaky-bucket") && (theme == Theme.ELASTIC || theme != Theme.PREFETCH && t < 12);
            boolean soft = !elastic && theme != Theme.PREFETCH && t >= 85;
            if (elastic || soft) {
                p.put(base + "throttling", elastic ? "elastic" : "soft");
                if (random.nextBoolean()) p.put(base + "overage", pick(random, "20%", "50%", "100%"));
                if (elastic) p.put(base + "capacity", "cap");
            }
            boolean prefetch = !elastic && !soft && (algorithm.equals("sliding-log") || algorithm.equals("token-bucket"))
                    && permits >= 3 && random.nextInt(10) < (theme == Theme.PREFETCH ? 9 : 3);
            if (prefetch) p.put(base + "prefetch", String.valueOf(1 + random.nextInt((int) permits - 1)));
            if (random.nextInt(7) == 0) p.put(base + "cost", "2");
            if (random.nextInt(4) == 0) p.put(base + "costs", BIG + "=" + (2 + random.nextInt(3)));
            if (random.nextInt(10) < (theme == Theme.CONCURRENCY_PLANS || theme == Theme.PREFETCH ? 5 : 2)) {
                p.put(base + "plan", "header:X-Plan");
                p.put(base + "plans.free.rate", Math.max(1, permits / 2) + "/" + period);
                p.put(base + "plans.pro.rate", permits * 2 + "/" + period);
                if (algorithm.equals("token-bucket") && random.nextBoolean()) p.put(base + "plans.pro.burst", String.valueOf(permits * 3));
                if (random.nextBoolean()) p.put(base + "plans.vip.rate", "unlimited");
            }
            return elastic;
        }

        /** The block draws' own random numbers, so that a seed's other draws stay what they were before blocks. */
        static final long BLOCK_SALT = 0x5EEDB10CL;

        /**
         * {@code block} on some of the rate rules that may have one (not prefetching, not elastic, not the capacity
         * rule, which only elastic borrowing decides), kept only when the parser still accepts the rules.
         */
        static void blocks(Map<String, String> p, SplittableRandom random) {
            Map<String, String> with = new TreeMap<>(p);
            for (String k : p.keySet()) {
                if (!k.matches("sluice\\.rules\\.r\\d+\\.rate")) continue;
                String base = k.substring(0, k.length() - "rate".length());
                if (p.containsKey(base + "prefetch") || "elastic".equals(p.get(base + "throttling"))) continue;
                if (random.nextInt(4) == 0) with.put(base + "block", pick(random, "1s", "10s", "1m", "15m"));
            }
            if (parses(with)) p.putAll(with);
        }

        /** The large limits' own random numbers, so that a seed's other draws stay what they were before them. */
        static final long LARGE_SALT = 0x1A46E5L;

        /**
         * A hundred times the permits (its plans' too) on about one rate rule in four that does not set {@code prefetch}:
         * a limit large enough for {@code prefetch=auto} to stock a key that a step's burst makes busy, kept only when
         * the parser still accepts the rules.
         */
        static void large(Map<String, String> p, SplittableRandom random) {
            Map<String, String> with = new TreeMap<>(p);
            for (String k : p.keySet()) {
                if (!k.matches("sluice\\.rules\\.r\\d+\\.rate")) continue;
                String base = k.substring(0, k.length() - "rate".length());
                if (p.containsKey(base + "prefetch") || random.nextInt(4) != 0) continue;
                for (String each : p.keySet()) {
                    boolean rate = each.equals(k) || each.startsWith(base + "plans.") && each.endsWith(".rate");
                    if (rate && !p.get(each).equals("unlimited")) with.put(each, hundredTimes(p.get(each)));
                    if (each.equals(base + "burst") || each.startsWith(base + "plans.") && each.endsWith(".burst")) {
                        with.put(each, String.valueOf(Long.parseLong(p.get(each)) * 100));
                    }
                }
            }
            if (parses(with)) p.putAll(with);
        }

        private static String hundredTimes(String rate) {
            String[] parts = rate.split("/");
            return Long.parseLong(parts[0]) * 100 + "/" + parts[1];
        }

        /** The outcome draws' own random numbers, so that a seed's other draws stay what they were before them. */
        static final long OUTCOME_SALT = 0x0C0DE5E7L;

        /** {@code count} or {@code settle} on some rate rules, kept only when the parser still accepts the rules. */
        static void outcomes(Map<String, String> p, SplittableRandom random) {
            Map<String, String> with = new TreeMap<>(p);
            for (String k : p.keySet()) {
                if (!k.matches("sluice\\.rules\\.r\\d+\\.rate")) continue;
                String base = k.substring(0, k.length() - "rate".length());
                String throttling = p.getOrDefault(base + "throttling", "hard");
                outcome(with, base, random, p.getOrDefault(base + "algorithm", "sliding-log"), throttling.equals("elastic"),
                        throttling.equals("soft") || p.containsKey(base + "prefetch"));
            }
            if (parses(with)) p.putAll(with);
        }

        /**
         * {@code count} (any refundable algorithm, not elastic) or {@code settle} (a settleable algorithm, hard, no
         * prefetch), each on about one rule in six.
         */
        private static void outcome(Map<String, String> p, String base, SplittableRandom random, String algorithm,
                                    boolean elastic, boolean softOrPrefetch) {
            int draw = random.nextInt(6);
            if (draw == 0 && !elastic && !algorithm.equals("leaky-bucket")) {
                p.put(base + "count", pick(random, "failure", "success", "401,403", "4xx", "2xx,500"));
            } else if (draw == 1 && !softOrPrefetch && !elastic
                    && (algorithm.equals("token-bucket") || algorithm.equals("fixed-window") || algorithm.equals("sliding-window"))) {
                p.put(base + "settle", "header:X-Used");
            }
        }

        /** The window counters' prefetch draws' own random numbers, so that a seed's other draws stay what they were. */
        static final long WINDOW_PREFETCH_SALT = 0x3D0C5EEDL;

        /**
         * {@code prefetch} on every window counter that may have one (hard, at least 3 permits), fewer than half their
         * permits where there are 4 or more, so that a reload halving the rate still parses; each kept only when the
         * parser accepts the rules with it.
         */
        static void windowPrefetches(Map<String, String> p, SplittableRandom random) {
            for (String k : List.copyOf(p.keySet())) {
                if (!k.matches("sluice\\.rules\\.r\\d+\\.rate")) continue;
                String base = k.substring(0, k.length() - "rate".length());
                String algorithm = p.getOrDefault(base + "algorithm", "sliding-log");
                if (!algorithm.equals("fixed-window") && !algorithm.equals("sliding-window")) continue;
                long permits = Long.parseLong(p.get(k).split("/")[0]);
                if (permits < 3 || !p.getOrDefault(base + "throttling", "hard").equals("hard")) continue;
                Map<String, String> with = new TreeMap<>(p);
                with.put(base + "prefetch", String.valueOf(1 + random.nextInt((int) Math.max(1, permits / 2 - 1))));
                if (parses(with)) p.putAll(with);
            }
        }

        private static void concurrencyRule(Map<String, String> p, String name, SplittableRandom random, Theme theme) {
            String base = "sluice.rules." + name + ".";
            p.put(base + "paths", "/api/*");
            p.put(base + "key", random.nextInt(5) == 0 ? "global" : "user");
            int limit = 1 + random.nextInt(4);
            p.put(base + "concurrency", String.valueOf(limit));
            p.put(base + "lease", LEASE);
            if (random.nextInt(10) < (theme == Theme.CONCURRENCY_PLANS ? 7 : 4)) p.put(base + "wait", WAIT);
            if (random.nextInt(10) < (theme == Theme.CONCURRENCY_PLANS ? 8 : 3)) {
                p.put(base + "plan", "header:X-Plan");
                p.put(base + "plans.free.concurrency", "1");
                p.put(base + "plans.pro.concurrency", String.valueOf(limit + 2));
                if (random.nextBoolean()) p.put(base + "plans.vip.concurrency", "unlimited");
            }
        }

        private static String pick(SplittableRandom random, String... values) {
            return values[random.nextInt(values.length)];
        }
    }

    /**
     * Overrides set and cleared at random points of a run, drawn from a random of their own so that a seed's other
     * steps stay what they were before overrides existed; in half the seeds.
     */
    static final class OverrideDraw {
        /** Mixed into the seed: the overrides' random is not the run's. */
        private static final long SALT = 0x6f76657272696465L;

        private OverrideDraw() {
        }

        static void insert(long seed, Map<String, String> rules, int engines, List<Step> steps) {
            SplittableRandom random = new SplittableRandom(seed ^ SALT);
            if (random.nextBoolean() || steps.isEmpty()) return;
            // Rules that requests match (a capacity rule only lends, by its own limits).
            List<String> names = rules.keySet().stream().filter(k -> k.matches("sluice\\.rules\\.[^.]+\\.paths"))
                    .map(k -> k.split("\\.")[2]).sorted().toList();
            for (int i = 0, n = 1 + random.nextInt(4); i < n; i++) {
                String rule = names.get(random.nextInt(names.size()));
                String key = KEYS.get(random.nextInt(KEYS.size()));
                int engine = random.nextInt(engines);
                int at = random.nextInt(steps.size() + 1);
                if (random.nextInt(4) == 0) {
                    steps.add(at, new ClearOverride(engine, rule, key));
                    continue;
                }
                long ttl = new long[]{1_000, 60_000, 3_600_000, MAX_ADVANCE_MILLIS}[random.nextInt(4)];
                steps.add(at, new SetOverride(engine, rule, key, limit(random, rules, rule), ttl));
            }
        }

        /** Unlimited, or the rule's rate with other permits, or its concurrency another number. */
        private static String limit(SplittableRandom random, Map<String, String> rules, String rule) {
            if (random.nextInt(5) == 0) return "unlimited";
            String rate = rules.get("sluice.rules." + rule + ".rate");
            String concurrency = rules.get("sluice.rules." + rule + ".concurrency");
            if (rate != null && (concurrency == null || random.nextBoolean())) {
                String[] parts = rate.split("/");
                long permits = Long.parseLong(parts[0]);
                long[] choices = {1, Math.max(1, permits / 2), permits * 2, permits * 3};
                return choices[random.nextInt(choices.length)] + "/" + parts[1];
            }
            return String.valueOf(1 + random.nextInt(5));
        }
    }
}
