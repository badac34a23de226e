package io.sluice.engine.rate;

import io.sluice.spi.Batching;
import io.sluice.engine.EngineListener;
import io.sluice.engine.EngineScheduler;
import io.sluice.engine.KeyNaming;
import io.sluice.engine.prefetch.Prefetcher;
import io.sluice.memory.InMemoryBackend;
import io.sluice.rule.RuleSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RatePathTest {
    private final RateStepFixture f = new RateStepFixture();
    private final InMemoryBackend backend = new InMemoryBackend();
    private final EngineScheduler scheduler = new EngineScheduler();
    private final Shield shield = new Shield(f.ticker);
    private final Prefetcher prefetcher = new Prefetcher(backend, f.ticker, scheduler, shield::forget, () -> 1);
    private final RuleSet rules = RateStepFixture.rules("r.rate=5/1m", "c.rate=50/1m", "c.key=global");
    private final RatePath paths = new RatePath(backend, Batching.oneAfterAnother(backend), backend, f.guard, new KeyNaming("t", backend), f.ticker, f.listener, () -> rules,
            shield, prefetcher, new Refunds(backend, f.guard, shield, prefetcher), new LeakySlot(scheduler::later));

    @AfterEach
    void close() {
        prefetcher.close();
        scheduler.close();
    }

    private RateStep first(String... properties) {
        return paths.forRule(RateStepFixture.rule(properties));
    }

    @Test
    void aPathIsAssembledOncePerShapeWhateverTheLimits() {
        RateStep five = first("rate=5/1m");
        assertThat(first("rate=50/1h", "algorithm=token-bucket")).isSameAs(five);
        assertThat(first("rate=5/1m", "throttling=soft")).isNotSameAs(five);
        paths.forget();
        assertThat(first("rate=5/1m")).isNotSameAs(five);
    }

    @Test
    void eachShapeStartsWhereItsRulesRequestsDo() {
        assertThat(first("rate=5/1m")).as("hard: the shield first").isInstanceOf(ShieldStep.class);
        assertThat(first("rate=5/1m", "throttling=soft")).as("soft: never shielded").isInstanceOf(BreakerStep.class);
        assertThat(first("rate=5/1m", "mode=dry-run")).as("dry run: never shielded").isInstanceOf(BreakerStep.class);
        assertThat(first("rate=5/1m", "prefetch=2")).as("prefetch: the stock first").isInstanceOf(StockStep.class);
    }

    @Test
    void aKeyTheBackendSaysIsUsedUpIsThenAnsweredByTheShield() {
        var rule = RateStepFixture.rule("rate=1/1m");
        RateStep path = paths.forRule(rule);
        assertThat(path.decide(f.ask(rule, "k", 1)).toCompletableFuture().join().allowed()).isTrue();
        assertThat(path.decide(f.ask(rule, "k", 1)).toCompletableFuture().join().rejects()).isTrue();
        assertThat(f.sources).as("the backend's answer left nothing").containsExactly(EngineListener.Source.BACKEND,
                EngineListener.Source.SHIELD);
    }
}
