package io.sluice.benchmarks;

import io.sluice.Admission;
import io.sluice.KeySource;
import io.sluice.Sluice;
import io.sluice.redisson.RedissonBackendProvider;
import io.sluice.rule.Rule;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The Redis state one user leaves behind: after {@code n} requests under a per-user rate rule (10/1h), and
 * after one request under a per-user concurrency rule; each key with {@code MEMORY USAGE} and its TTL.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.sluice.benchmarks.RedisMemory [--redis redis://...]</pre>
 */
public final class RedisMemory {
    record Key(String name, long bytes, long ttlMillis) {
    }

    record Usage(String what, List<Key> keys) {
        long bytes() {
            return keys.stream().mapToLong(Key::bytes).sum();
        }
    }

    public static void main(String[] args) {
        if (args.length == 2 && args[0].equals("--redis")) System.setProperty("sluice.bench.redis", args[1]);
        for (Usage u : measure()) {
            System.out.printf("%s: %d bytes in %d keys%n", u.what(), u.bytes(), u.keys().size());
            for (Key k : u.keys()) System.out.printf("    %-75s %5d bytes, TTL %d ms%n", k.name(), k.bytes(), k.ttlMillis());
        }
        System.exit(0);
    }

    static List<Usage> measure() {
        RedissonClient redisson = BenchRedis.client();
        List<Usage> out = new ArrayList<>();
        for (int requests : new int[]{1, 10}) {
            String prefix = "mem" + UUID.randomUUID().toString().substring(0, 6);
            try (Sluice sluice = Sluice.builder().backend(RedissonBackendProvider.using(redisson)).properties(Map.of("sluice.key-prefix", prefix,
                    "sluice.rules.posts.rate", "10/1h", "sluice.rules.posts.key", "user")).build()) {
                Rule rule = sluice.rules().get("posts").orElseThrow();
                for (int i = 0; i < requests; i++) sluice.admit(List.of(rule), KeySource.fixed("alice")).toCompletableFuture().join().close();
                out.add(new Usage("rate rule 10/1h, one user after " + requests + " request" + (requests == 1 ? "" : "s"), keys(redisson, prefix)));
            }
        }
        String prefix = "mem" + UUID.randomUUID().toString().substring(0, 6);
        try (Sluice sluice = Sluice.builder().backend(RedissonBackendProvider.using(redisson)).properties(Map.of("sluice.key-prefix", prefix,
                "sluice.rules.images.concurrency", "4", "sluice.rules.images.key", "user")).build()) {
            Rule rule = sluice.rules().get("images").orElseThrow();
            Admission a = sluice.admit(List.of(rule), KeySource.fixed("alice")).toCompletableFuture().join();
            // Measured in place: the permit is still to be released, which must find it.
            out.add(new Usage("concurrency rule 4, one user holding a permit", keys(redisson, prefix, false)));
            a.close();
            // The release is sent without waiting; wait for it here before measuring the idle state.
            long deadline = System.currentTimeMillis() + 5_000;
            while (sluice.availablePermits(rule, "alice").toCompletableFuture().join() < 4 && System.currentTimeMillis() < deadline) {
                Thread.onSpinWait();
            }
            out.add(new Usage("concurrency rule 4, one user after the request", keys(redisson, prefix)));
        }
        BenchRedis.release();
        return out;
    }

    private static List<Key> keys(RedissonClient redisson, String prefix) {
        return keys(redisson, prefix, true);
    }

    /** The keys under {@code prefix} with their bytes and TTL; deleted afterwards with {@code delete}. */
    private static List<Key> keys(RedissonClient redisson, String prefix, boolean delete) {
        TreeSet<String> names = new TreeSet<>();
        redisson.getKeys().getKeysByPattern(prefix + "*").forEach(names::add);
        redisson.getKeys().getKeysByPattern("{" + prefix + "*").forEach(names::add);
        RScript script = redisson.getScript(StringCodec.INSTANCE);
        List<Key> keys = new ArrayList<>();
        for (String name : names) {
            Long bytes = script.eval(name, RScript.Mode.READ_ONLY, "return redis.call('memory', 'usage', KEYS[1], 'samples', 0)",
                    RScript.ReturnType.LONG, List.of(name));
            long ttl = redisson.getKeys().remainTimeToLive(name);
            keys.add(new Key(name, bytes == null ? 0 : bytes, ttl));
        }
        if (delete) redisson.getKeys().delete(names.toArray(String[]::new));
        return keys;
    }
}
