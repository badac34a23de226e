package io.sluice;

import io.sluice.testing.TestRedisson;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.api.RedissonClient;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;

class StockPaidWindowRaceTest {
    private static RedissonClient redis;

    @BeforeAll
    static void connect() {
        redis = TestRedisson.client();
    }

    @AfterAll
    static void disconnect() {
        redis.shutdown();
    }

    @ParameterizedTest
    @ValueSource(strings = {"a sliding window's stock-paid permit given back beside a later window's stock",
            "a fixed window's stock-paid permit given back beside a later window's stock"})
    void repeated(String name) {
        int n = Integer.getInteger("race.runs", 40);
        EngineScenario scenario = KnownScenarios.all().get(name);
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long phase = System.currentTimeMillis() % 10_000;
            Optional<EngineScenarioRun.Failure> f;
            try (EngineScenarioRun run = new EngineScenarioRun(scenario, redis, null)) {
                f = run.run();
            }
            if (f.isPresent()) failures.add("phase " + phase + ": " + f.get());
        }
        failures.forEach(System.out::println);
        assertEquals(List.of(), failures, name);
    }
}
