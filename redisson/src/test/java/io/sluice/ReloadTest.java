package io.sluice;

import io.sluice.key.KeyResolver;
import io.sluice.redisson.CallerClockBackend;
import io.sluice.rule.RedisTransport;
import io.sluice.rule.Rule;
import io.sluice.rule.RuleSet;
import io.sluice.testing.LogRecorder;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.client.codec.StringCodec;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Hot reload on a real Redis: counters survive a changed limit for every algorithm the engine decides at once
 * (the leaky bucket, whose queued requests wait in real time, is covered by the backend contract), concurrency
 * permits stay held, refused files keep the old rules, reloads serialize and swap whole, the rules file is
 * polled, and requests in flight during swaps are all decided with no permit leaked. Time is the test's clock
 * (every algorithm runs on it), so windows never move under a test.
 */
class ReloadTest {
    private static final long HOUR_MILLIS = 3_600_000L;
    @RegisterExtension
    static final TestRedissonClient redisson = new TestRedissonClient();

    /** The start of an hour: fixed windows are aligned to it, so no window boundary falls inside a test. */
    private final MutableClock clock = new MutableClock((System.currentTimeMillis() / HOUR_MILLIS + 1) * HOUR_MILLIS);
    private final String prefix = "reload" + UUID.randomUUID().toString().substring(0, 8);
    private LogRecorder log;

    @TempDir
    Path dir;

    @BeforeEach
    void record() {
        log = LogRecorder.on(Sluice.class.getName());
    }

    @AfterEach
    void stopRecording() {
        log.close();
    }

    private Map<String, String> props(String... kv) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("sluice.key-prefix", prefix);
        for (int i = 0; i < kv.length; i += 2) p.put(kv[i], kv[i + 1]);
        return p;
    }

    private Sluice.Builder onRedis() {
        return Sluice.builder().backend(CallerClockBackend.of(redisson.client(), clock)).clock(clock).ticker(clock);
    }

    private Sluice engine(Map<String, String> props) {
        return onRedis().properties(props).build();
    }

    private static Admission admit(Sluice s, String rule, String key) {
        return s.admit(List.of(s.rules().get(rule).orElseThrow()), KeySource.fixed(key)).toCompletableFuture().join();
    }

    private static Decision headline(Admission a) {
        return a.headline().orElseThrow();
    }

    private Path write(String name, String... lines) throws IOException {
        Path tmp = dir.resolve(name + ".tmp");
        Files.writeString(tmp, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        Path file = dir.resolve(name);
        // As an operator should: the new file is moved into place whole, never read half-written.
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return file;
    }

    @ParameterizedTest
    @ValueSource(strings = {"sliding-log", "token-bucket", "fixed-window", "sliding-window"})
    void aKeyThatUsed8Of10Has12LeftUnder20AndNoneUnder5(String algorithm) {
        try (Sluice s = engine(props("sluice.rules.r.rate", "10/1h", "sluice.rules.r.algorithm", algorithm))) {
            for (int i = 0; i < 8; i++) {
                assertThat(admit(s, "r", "up").allowed()).isTrue();
                assertThat(admit(s, "r", "down").allowed()).isTrue();
            }
            s.reload(props("sluice.rules.r.rate", "20/1h", "sluice.rules.r.algorithm", algorithm));
            Decision raised = headline(admit(s, "r", "up"));
            assertThat(raised.allowed()).isTrue();
            assertThat(raised.limit()).isEqualTo(20);
            assertThat(raised.remaining()).as("12 left before this one").isEqualTo(11);
            for (int i = 0; i < 11; i++) assertThat(admit(s, "r", "up").allowed()).isTrue();
            assertThat(admit(s, "r", "up").allowed()).isFalse();

            s.reload(props("sluice.rules.r.rate", "5/1h", "sluice.rules.r.algorithm", algorithm));
            Decision lowered = headline(admit(s, "r", "down"));
            assertThat(lowered.allowed()).isFalse();
            assertThat(lowered.limit()).isEqualTo(5);
            assertThat(lowered.remaining()).isZero();
        }
    }

    @Test
    void aChangedAlgorithmOrPeriodStartsAFreshCounter() {
        try (Sluice s = engine(props("sluice.rules.r.rate", "3/1h"))) {
            for (int i = 0; i < 3; i++) admit(s, "r", "k");
            assertThat(admit(s, "r", "k").allowed()).isFalse();
            s.reload(props("sluice.rules.r.rate", "3/2h"));
            assertThat(headline(admit(s, "r", "k")).remaining()).isEqualTo(2);
            s.reload(props("sluice.rules.r.rate", "3/2h", "sluice.rules.r.algorithm", "fixed-window"));
            assertThat(headline(admit(s, "r", "k")).remaining()).isEqualTo(2);
        }
    }

    /** The attack shield remembers a key that took its last permit; under a raised limit Redis must be asked again. */
    @Test
    void aKeyTheShieldRemembersIsAskedAgainUnderARaisedLimit() {
        try (Sluice s = engine(props("sluice.rules.r.rate", "2/1h"))) {
            admit(s, "r", "k");
            admit(s, "r", "k");
            assertThat(admit(s, "r", "k").allowed()).isFalse();
            s.reload(props("sluice.rules.r.rate", "4/1h"));
            Decision d = headline(admit(s, "r", "k"));
            assertThat(d.allowed()).isTrue();
            assertThat(d.remaining()).isEqualTo(1);
        }
    }

    @Test
    void aChangedConcurrencyLimitKeepsThePermitsHeldAndThoseAboveALoweredLimitDrain() {
        try (Sluice s = engine(props("sluice.rules.c.concurrency", "4"))) {
            List<Admission> held = new ArrayList<>();
            for (int i = 0; i < 3; i++) held.add(admit(s, "c", "k"));
            assertThat(held).allMatch(Admission::allowed);
            s.reload(props("sluice.rules.c.concurrency", "6"));
            for (int i = 0; i < 3; i++) {
                Admission a = admit(s, "c", "k");
                assertThat(a.allowed()).isTrue();
                held.add(a);
            }
            assertThat(admit(s, "c", "k").allowed()).as("6 of 6 held").isFalse();

            s.reload(props("sluice.rules.c.concurrency", "2"));
            assertThat(admit(s, "c", "k").allowed()).isFalse();
            for (int i = 0; i < 4; i++) held.remove(0).close();
            assertThat(admit(s, "c", "k").allowed()).as("2 of 2 still held").isFalse();
            held.remove(0).close();
            // Releases are sent without waiting for Redis: wait for the five to land (1 held of 2).
            Rule lowered = s.rules().get("c").orElseThrow();
            await().atMost(Duration.ofSeconds(5)).until(() -> s.availablePermits(lowered, "k").toCompletableFuture().join() == 1);
            Admission fits = admit(s, "c", "k");
            assertThat(fits.allowed()).isTrue();
            held.add(fits);
            assertThat(admit(s, "c", "k").allowed()).isFalse();
            held.forEach(Admission::close);
            Rule c = s.rules().get("c").orElseThrow();
            await().atMost(Duration.ofSeconds(5)).until(() -> s.availablePermits(c, "k").toCompletableFuture().join() == 2);
            assertThat(redisString(prefix + ":c:concurrency:" + KeyResolver.hash("k"))).isEqualTo("2");
        }
    }

    @Test
    void aBadFileIsRefusedWithEveryProblemInOneErrorAndTheOldRulesKeepServing() throws IOException {
        Path file = write("rules.properties", "sluice.key-prefix=" + prefix, "sluice.rules.r.rate=3/1h");
        try (Sluice s = onRedis().config("file:" + file).build()) {
            RuleSet before = s.rules();
            admit(s, "r", "k");
            write("rules.properties", "sluice.key-prefix=" + prefix, "sluice.rules.r.rate=lots", "sluice.rules.r.colour=red",
                    "sluice.rules.x.concurrency=4");
            assertThatThrownBy(s::reload).isInstanceOfSatisfying(ConfigException.class,
                    e -> assertThat(e.problems()).hasSize(2));
            List<String> errors = log.messages(Level.SEVERE);
            assertThat(errors).hasSize(1);
            assertThat(errors.get(0)).contains("refused", file.toString(), "sluice.rules.r.rate = \"lots\"",
                    "sluice.rules.r.colour = \"red\"");
            assertThat(s.rules()).isSameAs(before);
            assertThat(headline(admit(s, "r", "k")).remaining()).as("still 3/1h, 2 used").isEqualTo(1);

            write("rules.properties", "sluice.key-prefix=" + prefix, "sluice.rules.r.rate=5/1h");
            assertThat(s.reload()).isTrue();
            assertThat(headline(admit(s, "r", "k")).remaining()).isEqualTo(2);
            assertThat(s.reload()).as("the file reads as it did").isFalse();
        }
    }

    @Test
    void aReloadRemovingARequiredRuleIsRefused() {
        try (Sluice s = engine(props("sluice.rules.images.rate", "3/1h", "sluice.rules.other.rate", "1/1s"))) {
            s.requireRules("@Limited on com.example.Images.generate", List.of("images"));
            assertThatThrownBy(() -> s.reload(props("sluice.rules.other.rate", "2/1s")))
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("sluice.rules.images = (removed)")
                    .hasMessageContaining("@Limited on com.example.Images.generate");
            assertThat(s.rules().get("images")).isPresent();
            assertThat(log.messages(Level.SEVERE)).singleElement().asString().contains("sluice.rules.images");
            // Changing it is fine; only removing it is not.
            s.reload(props("sluice.rules.images.rate", "6/1h"));
            assertThat(s.rules().get("images").orElseThrow().rate().orElseThrow().permits()).isEqualTo(6);
            assertThatThrownBy(() -> s.requireRules("@Limited on com.example.X.y", List.of("nope")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nope");
        }
    }

    @Test
    void settingsThatNeedARestartAreLoggedAndIgnoredWhileTheRestApplies() {
        try (Sluice s = engine(props("sluice.rules.r.rate", "3/1h", "sluice.headers", "ietf"))) {
            s.reload(Map.of("sluice.key-prefix", "elsewhere", "sluice.headers", "legacy", "sluice.backend-timeout", "2s",
                    "sluice.trusted-proxies", "10.0.0.0/8", "sluice.redis.transport", "nio", "sluice.rules.r.rate", "4/1h"));
            assertThat(s.rules().settings().keyPrefix()).isEqualTo(prefix);
            assertThat(s.rules().settings().redisTransport()).isEqualTo(RedisTransport.AUTO);
            assertThat(s.rules().settings().headers().name()).isEqualTo("IETF");
            assertThat(s.rules().settings().trustedProxies().toString()).contains("10.0.0.0/8");
            assertThat(s.rules().get("r").orElseThrow().rate().orElseThrow().permits()).isEqualTo(4);
            List<String> warnings = log.messages(Level.WARNING);
            assertThat(warnings).anyMatch(w -> w.contains("sluice.key-prefix") && w.contains("elsewhere") && w.contains("restart"));
            assertThat(warnings).anyMatch(w -> w.contains("sluice.headers"));
            assertThat(warnings).anyMatch(w -> w.contains("sluice.backend-timeout"));
            assertThat(warnings).anyMatch(w -> w.contains("sluice.redis.transport changed from \"auto\" to \"nio\""));
            assertThat(warnings).noneMatch(w -> w.contains("sluice.trusted-proxies"));
        }
    }

    @Test
    void anEngineBuiltFromPropertiesHasNothingToReadAgain() {
        try (Sluice s = engine(props("sluice.rules.r.rate", "3/1h", "sluice.reload", "10s"))) {
            assertThatThrownBy(s::reload).isInstanceOf(IllegalStateException.class).hasMessageContaining("reload(properties)");
            assertThat(log.messages(Level.WARNING)).anyMatch(w -> w.contains("sluice.reload=10s is ignored"));
        }
    }

    /**
     * Eight threads reload at once, each its own version in which both rules carry the same number: a reader never
     * sees rules of two versions, and every reload is applied whole, one after another.
     */
    @Test
    void concurrentReloadsSerializeAndEachSwapsTheWholeRuleSet() throws Exception {
        try (Sluice s = engine(props("sluice.rules.a.rate", "1/1h", "sluice.rules.b.rate", "1/1h"))) {
            int threads = 8;
            int each = 25;
            AtomicLong mixed = new AtomicLong();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> reloaders = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int version = t + 2;
                Thread th = new Thread(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < each; i++) {
                            String rate = (version * 100 + i) + "/1h";
                            s.reload(props("sluice.rules.a.rate", rate, "sluice.rules.b.rate", rate));
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
                th.start();
                reloaders.add(th);
            }
            AtomicInteger reads = new AtomicInteger();
            Thread reader = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    RuleSet r = s.rules();
                    if (r.get("a").orElseThrow().rate().get().permits() != r.get("b").orElseThrow().rate().get().permits()) {
                        mixed.incrementAndGet();
                    }
                    reads.incrementAndGet();
                }
            });
            reader.start();
            start.countDown();
            for (Thread th : reloaders) th.join(30_000);
            reader.interrupt();
            reader.join(5_000);
            assertThat(failure.get()).isNull();
            assertThat(mixed.get()).isZero();
            assertThat(reads.get()).isPositive();
            assertThat(log.messages(Level.INFO).stream().filter(m -> m.startsWith("Sluice reloaded its rules"))).hasSize(threads * each);
            long a = s.rules().get("a").orElseThrow().rate().get().permits();
            assertThat(a % 100).as("the last reload of some thread").isEqualTo(each - 1);
        }
    }

    @Test
    void thePollReloadsAChangedFileOnceAndLogsARefusedOneOnce() throws IOException {
        // An hour between the engine's own polls: the test polls by hand.
        Path file = write("polled.properties", "sluice.key-prefix=" + prefix, "sluice.reload=1h", "sluice.rules.r.rate=3/1h");
        try (Sluice s = onRedis().config(file.toString()).build()) {
            RuleSet first = s.rules();
            s.pollRulesSource();
            assertThat(s.rules()).as("unchanged file").isSameAs(first);

            write("polled.properties", "sluice.key-prefix=" + prefix, "sluice.reload=1h", "sluice.rules.r.rate=7/1h");
            s.pollRulesSource();
            assertThat(s.rules()).as("read once: maybe still being written").isSameAs(first);
            s.pollRulesSource();
            RuleSet second = s.rules();
            assertThat(second.get("r").orElseThrow().rate().orElseThrow().permits()).isEqualTo(7);
            s.pollRulesSource();
            assertThat(s.rules()).isSameAs(second);

            write("polled.properties", "sluice.key-prefix=" + prefix, "sluice.reload=1h", "sluice.rules.r.rate=7/1h",
                    "sluice.rules.r.wait=1s");
            s.pollRulesSource();
            s.pollRulesSource();
            assertThat(s.rules()).isSameAs(second);
            assertThat(log.messages(Level.SEVERE)).singleElement().asString().contains("sluice.rules.r.wait");

            Files.delete(file);
            s.pollRulesSource();
            s.pollRulesSource();
            assertThat(log.messages(Level.SEVERE)).hasSize(2);
            assertThat(log.messages(Level.SEVERE).get(1)).contains("expected an existing file");

            write("polled.properties", "sluice.key-prefix=" + prefix, "sluice.reload=1h", "sluice.rules.r.rate=9/1h");
            s.pollRulesSource();
            s.pollRulesSource();
            assertThat(s.rules().get("r").orElseThrow().rate().orElseThrow().permits()).isEqualTo(9);
        }
    }

    @Test
    void sluiceReloadPollsTheFileOnTheEnginesThread() throws IOException {
        Path file = write("timed.properties", "sluice.key-prefix=" + prefix, "sluice.reload=100ms", "sluice.rules.r.rate=3/1h");
        try (Sluice s = onRedis().config("file:" + file).build()) {
            write("timed.properties", "sluice.key-prefix=" + prefix, "sluice.reload=100ms", "sluice.rules.r.rate=4/1h");
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> s.rules().get("r").orElseThrow().rate().orElseThrow().permits() == 4);
            // sluice.reload needs a restart: a file that says 0s is applied, and the engine goes on looking.
            write("timed.properties", "sluice.key-prefix=" + prefix, "sluice.reload=0s", "sluice.rules.r.rate=5/1h");
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> s.rules().get("r").orElseThrow().rate().orElseThrow().permits() == 5);
            assertThat(s.rules().settings().reload()).isEqualTo(Duration.ofMillis(100));
            write("timed.properties", "sluice.key-prefix=" + prefix, "sluice.reload=0s", "sluice.rules.r.rate=6/1h");
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> s.rules().get("r").orElseThrow().rate().orElseThrow().permits() == 6);
        }
    }

    /**
     * Requests through the engine while the rules are swapped every few milliseconds between two limits: every
     * request is decided by Redis (none lost to an error or a failure policy), every admitted rate decision is
     * exactly one unit of Redis state, concurrency never exceeds the larger limit, and every permit comes back.
     */
    @Test
    void reloadUnderLoadLosesNoDecisionAndLeaksNoPermit() throws Exception {
        Map<String, String> low = props("sluice.rules.log.rate", "50/1h", "sluice.rules.win.rate", "50/1h",
                "sluice.rules.win.algorithm", "fixed-window", "sluice.rules.c.concurrency", "3");
        Map<String, String> high = props("sluice.rules.log.rate", "100/1h", "sluice.rules.win.rate", "100/1h",
                "sluice.rules.win.algorithm", "fixed-window", "sluice.rules.c.concurrency", "6");
        int keys = 4;
        try (Sluice s = engine(low)) {
            AtomicLong sent = new AtomicLong();
            AtomicLong admitted = new AtomicLong();
            AtomicLong rejected = new AtomicLong();
            AtomicLong undecided = new AtomicLong();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Map<String, AtomicLong> admittedByRuleKey = new ConcurrentHashMap<>();
            Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
            AtomicInteger peak = new AtomicInteger();
            AtomicInteger reloads = new AtomicInteger();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            List<Thread> workers = new ArrayList<>();
            String[] ruleNames = {"log", "win", "c"};
            for (int t = 0; t < 6; t++) {
                Thread th = new Thread(() -> {
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    while (System.nanoTime() < until && failure.get() == null) {
                        String rule = ruleNames[random.nextInt(ruleNames.length)];
                        String key = "k" + random.nextInt(keys);
                        try {
                            sent.incrementAndGet();
                            // Looked up per request, as the filter and the interceptor do.
                            Rule r = s.rules().get(rule).orElseThrow();
                            Admission a = s.admit(List.of(r), KeySource.fixed(key)).toCompletableFuture().get(5, TimeUnit.SECONDS);
                            if (a.decisions().stream().anyMatch(d -> d.outcome() != Decision.Outcome.DECIDED)) {
                                undecided.incrementAndGet();
                            }
                            if (!a.allowed()) {
                                rejected.incrementAndGet();
                                continue;
                            }
                            admitted.incrementAndGet();
                            admittedByRuleKey.computeIfAbsent(rule + "|" + key, k -> new AtomicLong()).incrementAndGet();
                            if (rule.equals("c")) {
                                AtomicInteger n = inFlight.computeIfAbsent(key, k -> new AtomicInteger());
                                peak.accumulateAndGet(n.incrementAndGet(), Math::max);
                                Thread.sleep(1);
                                n.decrementAndGet();
                            }
                            a.close();
                        } catch (Throwable e) {
                            failure.compareAndSet(null, e);
                        }
                    }
                }, "load-" + t);
                th.start();
                workers.add(th);
            }
            Thread reloader = new Thread(() -> {
                try {
                    while (System.nanoTime() < until) {
                        s.reload(reloads.getAndIncrement() % 2 == 0 ? high : low);
                        Thread.sleep(5);
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "reloader");
            reloader.start();
            for (Thread th : workers) th.join(30_000);
            reloader.join(30_000);

            assertThat(failure.get()).isNull();
            assertThat(reloads.get()).as("reloads during the load").isGreaterThan(20);
            assertThat(admitted.get() + rejected.get()).as("every request answered").isEqualTo(sent.get());
            assertThat(undecided.get()).as("decided by Redis (or its shield), never by a failure policy").isZero();
            assertThat(peak.get()).as("never above the larger limit").isLessThanOrEqualTo(6);
            assertThat(peak.get()).isPositive();
            for (int k = 0; k < keys; k++) {
                String hash = KeyResolver.hash("k" + k);
                long log = admittedByRuleKey.getOrDefault("log|k" + k, new AtomicLong()).get();
                long win = admittedByRuleKey.getOrDefault("win|k" + k, new AtomicLong()).get();
                assertThat(log).isLessThanOrEqualTo(100);
                assertThat(win).isLessThanOrEqualTo(100);
                // One log entry per admitted request, one count per admitted request: nothing lost, nothing extra.
                assertThat(redisson.client().getScoredSortedSet("{" + prefix + ":log:sliding-log:1h:" + hash + "}:permits").size())
                        .isEqualTo((int) log);
                String window = redisString(prefix + ":{win:fixed-window:1h:" + hash + "}");
                assertThat(window == null ? 0 : Long.parseLong(window.substring(window.indexOf(':') + 1))).isEqualTo(win);
            }
            Rule c = s.rules().get("c").orElseThrow();
            for (int k = 0; k < keys; k++) {
                String key = "k" + k;
                // The last releases are sent without waiting for Redis: wait for them to land, then check the leases.
                await("all permits back").atMost(Duration.ofSeconds(10))
                        .until(() -> s.availablePermits(c, key).toCompletableFuture().join() == c.concurrency());
                assertThat(redisson.client().getScoredSortedSet("{" + prefix + ":c:concurrency:" + KeyResolver.hash(key) + "}:timeout")
                        .size()).isZero();
            }
            System.out.printf("reload under load: %d requests, %d admitted, %d rejected, %d reloads, 0 lost, 0 leaked%n",
                    sent.get(), admitted.get(), rejected.get(), reloads.get());
        }
    }

    private static String redisString(String key) {
        return redisson.client().<String>getBucket(key, StringCodec.INSTANCE).get();
    }
}
