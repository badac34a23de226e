package io.sluice.topology;

import io.sluice.Admission;
import io.sluice.Sluice;
import io.sluice.Stats;
import io.sluice.rule.Rule;
import io.sluice.spi.Algorithm;
import io.sluice.testing.Connected;
import io.sluice.testing.RedisCluster;
import io.sluice.testing.RedisProcess;
import io.sluice.testing.RedisYaml;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The keys of one rule spread over every master of the local 3-master cluster, for each algorithm: a single
 * rule never pins its traffic to one shard, which is what the capacity plan in BENCHMARKS.md assumes when it
 * divides decisions a second by the number of shards. Each key is also decided exactly (limit 2: two admitted,
 * the third rejected; a leaky bucket admits one), so the state each master holds is the one that counts.
 */
class KeySpreadIT {
    private static final String PREFIX = "sp" + UUID.randomUUID().toString().substring(0, 8);
    private static final int KEYS = 300;
    private static final int LIMIT = 2;
    private static RedisCluster cluster;
    private static Sluice sluice;

    @BeforeAll
    static void start() {
        cluster = RedisCluster.shared();
        Map<String, String> p = new HashMap<>();
        p.put("sluice.redis.config", RedisYaml.file(cluster.yaml()));
        p.put("sluice.key-prefix", PREFIX);
        // A script that failed would show as a wrong count, not as an admission.
        p.put("sluice.on-backend-failure", "deny");
        p.put("sluice.backend-timeout", "5s");
        for (Algorithm a : Algorithm.values()) {
            p.put("sluice.rules." + ruleName(a) + ".rate", LIMIT + "/1h");
            p.put("sluice.rules." + ruleName(a) + ".algorithm", a.id());
        }
        p.put("sluice.rules.probe.rate", "1000/1h"); // a rule whose keys no test counts
        sluice = Sluice.fromProperties(p);
        Connected.await(sluice, "probe");
    }

    @AfterAll
    static void stop() {
        if (sluice != null) sluice.close();
        sluice = null;
    }

    private static String ruleName(Algorithm algorithm) {
        return "spread-" + algorithm.id();
    }

    @ParameterizedTest
    @EnumSource(Algorithm.class)
    void theKeysOfOneRuleSpreadOverEveryMaster(Algorithm algorithm) {
        Stats before = sluice.stats();
        Rule rule = sluice.rules().get(ruleName(algorithm)).orElseThrow();
        String run = UUID.randomUUID().toString();
        int admitted = 0;
        int rejected = 0;
        for (int i = 0; i < KEYS; i++) {
            String key = run + "-" + i;
            for (int n = 0; n <= LIMIT; n++) {
                if (admit(rule, key).allowed()) admitted++;
                else rejected++;
            }
        }
        // A leaky bucket without a queue admits on pace only: one at once, the next one a period/limit later.
        int admittedPerKey = algorithm == Algorithm.LEAKY_BUCKET ? 1 : LIMIT;
        assertThat(admitted).isEqualTo(KEYS * admittedPerKey);
        assertThat(rejected).isEqualTo(KEYS * (LIMIT + 1 - admittedPerKey));
        assertThat(sluice.stats().failedClosed() - before.failedClosed()).as("decisions without Redis").isZero();

        // One decision state per key; a state may be several Redis keys (sliding-log: the limiter's hash,
        // counter and log, all on the slot of its name), counted once, on the master that holds it.
        String marker = ruleName(algorithm) + ":";
        Set<String> seen = new HashSet<>();
        Map<Integer, Integer> statesPerMaster = new HashMap<>();
        for (RedisProcess master : cluster.masters()) {
            Set<String> states = new HashSet<>();
            for (String k : RedisCluster.keys(master, "*" + PREFIX)) {
                if (k.contains(marker)) states.add(stateName(k));
            }
            statesPerMaster.put(master.port(), states.size());
            for (String s : states) assertThat(seen.add(s)).as("%s on one master only", s).isTrue();
        }
        System.out.println("cluster, " + algorithm.id() + ": " + KEYS + " keys of one rule per master " + statesPerMaster);
        assertThat(seen.size()).as("decision states of the rule").isEqualTo(KEYS);
        assertThat(statesPerMaster).hasSize(cluster.masterCount());
        // Hashed evenly, 100 a master (standard deviation about 8): far from 0 on every one of them.
        assertThat(statesPerMaster.values()).allSatisfy(n -> assertThat(n).isGreaterThan(KEYS / (2 * cluster.masterCount())));
    }

    /** The limiter a Redis key belongs to: Redisson's {@code {name}:suffix} sub-keys are the name's. */
    private static String stateName(String key) {
        if (key.startsWith("{")) return key.substring(1, key.indexOf('}'));
        return key;
    }

    private static Admission admit(Rule rule, String key) {
        Admission a = sluice.admit(List.of(rule), r -> key).toCompletableFuture().join();
        a.close();
        return a;
    }
}
