package io.sluice.cdi;

import io.sluice.LimitExceededException;
import io.sluice.Sluice;
import io.sluice.key.KeyResolver;
import io.sluice.rule.Rule;
import jakarta.enterprise.context.ApplicationScoped;
import org.jboss.weld.environment.se.WeldContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The interceptor in Weld SE on a real Redis. Every test has a rule of its own. */
class LimitedInterceptorTest {
    private static WeldContainer container;
    private static Service service;
    private static ClassLimited classLimited;
    private static Sluice sluice;

    @BeforeAll
    static void boot() {
        container = CdiTesting.boot(CdiTesting.rulesFile(
                "sluice.rules.hourly.rate=3/1h",
                "sluice.rules.hourly.key=global",
                "sluice.rules.peruser.rate=2/1h",
                "sluice.rules.peruser.key=user",
                "sluice.rules.nullkey.rate=5/1h",
                "sluice.rules.nullkey.key=user",
                "sluice.rules.nullkey.on-missing-key=deny",
                "sluice.rules.anon.rate=5/1h",
                "sluice.rules.anon.key=user",
                "sluice.rules.anon.on-missing-key=deny",
                "sluice.rules.classwide.rate=2/1h",
                "sluice.rules.classwide.key=global",
                "sluice.rules.override.rate=4/1h",
                "sluice.rules.override.key=global",
                "sluice.rules.dry.rate=1/1h",
                "sluice.rules.dry.key=global",
                "sluice.rules.dry.mode=dry-run",
                "sluice.rules.slow.concurrency=3",
                "sluice.rules.slow.key=global",
                "sluice.rules.async.concurrency=1",
                "sluice.rules.async.key=global",
                "sluice.rules.failing.concurrency=1",
                "sluice.rules.failing.key=global"),
                Service.class, ClassLimited.class);
        service = container.select(Service.class).get();
        classLimited = container.select(ClassLimited.class).get();
        sluice = container.select(Sluice.class).get();
    }

    @AfterAll
    static void shutdown() {
        if (container != null) container.shutdown();
    }

    @Test
    void admitsExactlyTheRateThenThrowsWithTheRuleAndRetryAfter() {
        for (int i = 0; i < 3; i++) assertThat(service.hourly()).isEqualTo("ok");
        assertThatThrownBy(service::hourly).isInstanceOfSatisfying(LimitExceededException.class, e -> {
            assertThat(e.rule()).isEqualTo("hourly");
            assertThat(e.retryAfter()).isEqualTo(Duration.ofHours(1));
            assertThat(e.limit()).isEqualTo(3);
            assertThat(e.remaining()).isZero();
        });
        assertThat(Service.hourlyCalls.get()).isEqualTo(3);
    }

    @Test
    void limitKeySeparatesCallers() {
        service.perUser("alice");
        service.perUser("alice");
        assertThatThrownBy(() -> service.perUser("alice")).isInstanceOf(LimitExceededException.class);
        assertThat(service.perUser("bob")).isEqualTo("bob");
        assertThat(service.perUser("bob")).isEqualTo("bob");
        assertThatThrownBy(() -> service.perUser("bob")).isInstanceOf(LimitExceededException.class);
    }

    @Test
    void nullLimitKeyIsAMissingKey() {
        assertThatThrownBy(() -> service.nullKey(null))
                .isInstanceOfSatisfying(LimitExceededException.class, e -> assertThat(e.rule()).isEqualTo("nullkey"));
        assertThat(service.nullKey(42)).isEqualTo("42");
    }

    @Test
    void userKeyWithoutAPrincipalIsMissing() {
        assertThatThrownBy(service::anonymous)
                .isInstanceOfSatisfying(LimitExceededException.class, e -> assertThat(e.rule()).isEqualTo("anon"));
    }

    @Test
    void classLevelBindingAppliesAndMethodLevelOverridesIt() {
        assertThat(classLimited.plain()).isEqualTo("plain");
        assertThat(classLimited.plain()).isEqualTo("plain");
        assertThatThrownBy(classLimited::plain)
                .isInstanceOfSatisfying(LimitExceededException.class, e -> assertThat(e.rule()).isEqualTo("classwide"));

        // The method's own rule (4/1h) replaces the class's, which is exhausted by now.
        for (int i = 0; i < 4; i++) assertThat(classLimited.overridden()).isEqualTo("overridden");
        assertThatThrownBy(classLimited::overridden)
                .isInstanceOfSatisfying(LimitExceededException.class, e -> assertThat(e.rule()).isEqualTo("override"));
        assertThat(classLimited.exempt()).isEqualTo("exempt");
    }

    @Test
    void dryRunNeverThrows() {
        for (int i = 0; i < 5; i++) assertThat(service.dry()).isEqualTo("dry");
    }

    @Test
    void concurrencyAdmitsExactlyTheLimitAndReleasesEveryPermit() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(10);
        try {
            CountDownLatch start = new CountDownLatch(1);
            AtomicInteger rejected = new AtomicInteger();
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                calls.add(pool.submit(() -> {
                    start.await();
                    try {
                        service.slow();
                    } catch (LimitExceededException e) {
                        assertThat(e.rule()).isEqualTo("slow");
                        rejected.incrementAndGet();
                    }
                    return null;
                }));
            }
            start.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> rejected.get() == 7 && Service.inside.get() == 3);
            Service.gate.countDown();
            for (Future<?> f : calls) f.get(10, TimeUnit.SECONDS);
            assertThat(Service.peak.get()).isEqualTo(3);
            assertThat(Service.slowCalls.get()).isEqualTo(3);
            assertThat(rejected.get()).isEqualTo(7);
            awaitPermits("slow", 3);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void completionStageKeepsItsPermitUntilItCompletes() throws Exception {
        CompletableFuture<String> first = new CompletableFuture<>();
        CompletableFuture<String> returned = service.async(first).toCompletableFuture();
        // The call returns before Redis admits it: once its permit is taken, the next call finds none.
        awaitPermits("async", 0);
        assertThat(rejection(() -> service.async(new CompletableFuture<>())).rule()).isEqualTo("async");

        Thread completer = new Thread(() -> first.complete("done"));
        completer.start();
        completer.join();
        assertThat(returned.get(10, TimeUnit.SECONDS)).isEqualTo("done");
        awaitPermits("async", 1);

        CompletableFuture<String> second = new CompletableFuture<>();
        CompletableFuture<String> returnedSecond = service.async(second).toCompletableFuture();
        second.completeExceptionally(new IllegalStateException("failed later"));
        assertThatThrownBy(() -> returnedSecond.get(10, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalStateException.class);
        awaitPermits("async", 1);
    }

    /** The rejection of a call returning a stage: thrown if Sluice knew at once, else the stage's failure. */
    static LimitExceededException rejection(Supplier<CompletionStage<?>> call) {
        try {
            call.get().toCompletableFuture().get(10, TimeUnit.SECONDS);
        } catch (LimitExceededException e) {
            return e;
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(LimitExceededException.class);
            return (LimitExceededException) e.getCause();
        } catch (InterruptedException | TimeoutException e) {
            throw new AssertionError(e);
        }
        throw new AssertionError("admitted, expected a rejection");
    }

    @Test
    void aMethodThatThrowsReleasesItsPermit() {
        for (int i = 0; i < 3; i++) {
            assertThatThrownBy(service::fail).isInstanceOf(IllegalStateException.class).hasMessage("boom");
            awaitPermits("failing", 1);
        }
    }

    private static void awaitPermits(String rule, int expected) {
        Rule r = sluice.rules().get(rule).orElseThrow();
        await().atMost(Duration.ofSeconds(10)).until(
                () -> sluice.availablePermits(r, KeyResolver.GLOBAL).toCompletableFuture().join() == expected);
    }

    @ApplicationScoped
    public static class Service {
        // Static: the test holds a client proxy, whose own fields are not the bean's.
        static final AtomicInteger hourlyCalls = new AtomicInteger();
        static final AtomicInteger inside = new AtomicInteger();
        static final AtomicInteger peak = new AtomicInteger();
        static final AtomicInteger slowCalls = new AtomicInteger();
        static final CountDownLatch gate = new CountDownLatch(1);

        @Limited("hourly")
        public String hourly() {
            hourlyCalls.incrementAndGet();
            return "ok";
        }

        @Limited("peruser")
        public String perUser(@LimitKey String user) {
            return user;
        }

        @Limited("nullkey")
        public String nullKey(@LimitKey Object key) {
            return String.valueOf(key);
        }

        @Limited("anon")
        public String anonymous() {
            return "anonymous";
        }

        @Limited("dry")
        public String dry() {
            return "dry";
        }

        @Limited("slow")
        public void slow() throws InterruptedException {
            slowCalls.incrementAndGet();
            peak.accumulateAndGet(inside.incrementAndGet(), Math::max);
            try {
                gate.await(10, TimeUnit.SECONDS);
            } finally {
                inside.decrementAndGet();
            }
        }

        @Limited("async")
        public CompletionStage<String> async(CompletableFuture<String> result) {
            return result;
        }

        @Limited("failing")
        public void fail() {
            throw new IllegalStateException("boom");
        }
    }

    @ApplicationScoped
    @Limited("classwide")
    public static class ClassLimited {
        public String plain() {
            return "plain";
        }

        @Limited("override")
        public String overridden() {
            return "overridden";
        }

        @Limited({})
        public String exempt() {
            return "exempt";
        }
    }
}
