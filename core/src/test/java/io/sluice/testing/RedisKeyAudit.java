package io.sluice.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Scans every Redis key under a Sluice key prefix and checks the two promises about them: each one has a TTL, and
 * each one has Sluice's shape, {@code <prefix>:<rule>:sliding-log:<period>:<hash>} or
 * {@code <prefix>:<rule>:concurrency:<hash>} (the hash 22 URL-safe Base64 characters) or one of Redisson's sub-keys
 * {@code {<that>}:value|permits|timeout|released}, or {@code <prefix>:{<rule>:<algorithm>:<period>:<hash>}} for the algorithms on
 * Redis TIME, so no raw client value ever became part of a key.
 */
public final class RedisKeyAudit {
    /** Returns the keys among KEYS[] that exist and have no TTL. */
    private static final String WITHOUT_TTL = "local bad = {} for _, k in ipairs(KEYS) do "
            + "if redis.call('pttl', k) == -1 then bad[#bad + 1] = k end end return bad";

    public final long keys;
    public final List<String> withoutTtl;
    public final List<String> malformed;

    private RedisKeyAudit(long keys, List<String> withoutTtl, List<String> malformed) {
        this.keys = keys;
        this.withoutTtl = withoutTtl;
        this.malformed = malformed;
    }

    public static RedisKeyAudit of(int port, String prefix) {
        String name = Pattern.quote(prefix) + ":[A-Za-z0-9_-]+:(sliding-log:[0-9]+(ms|s|m|h|d)|concurrency):[A-Za-z0-9_-]{22}";
        // The algorithms on Redis TIME (issue 13): one key, the whole name one hash tag, no limit in it.
        String algorithm = Pattern.quote(prefix) + ":\\{[A-Za-z0-9_-]+:(token-bucket|leaky-bucket|fixed-window|sliding-window)"
                + ":[0-9]+(ms|s|m|h|d):[A-Za-z0-9_-]{22}\\}";
        // The servers' announcements, while a rule is local or prefetch=auto (one sorted set, with a TTL).
        String servers = Pattern.quote(prefix) + ":servers";
        Pattern shape = Pattern.compile(name + "|\\{" + name + "\\}:(value|permits|timeout|released)|" + algorithm + "|" + servers);
        long count = 0;
        List<String> withoutTtl = new ArrayList<>();
        List<String> malformed = new ArrayList<>();
        try (Resp resp = Resp.connect(port, Duration.ofSeconds(30))) {
            for (String match : List.of(prefix + ":*", "{" + prefix + ":*")) {
                String cursor = "0";
                do {
                    List<?> reply = (List<?>) resp.call("SCAN", cursor, "MATCH", match, "COUNT", "5000");
                    cursor = (String) reply.get(0);
                    List<String> batch = new ArrayList<>();
                    for (Object k : (List<?>) reply.get(1)) batch.add((String) k);
                    count += batch.size();
                    for (String k : batch) if (!shape.matcher(k).matches() && malformed.size() < 20) malformed.add(k);
                    if (!batch.isEmpty()) {
                        List<String> args = new ArrayList<>(List.of("EVAL", WITHOUT_TTL, Integer.toString(batch.size())));
                        args.addAll(batch);
                        for (Object k : (List<?>) resp.call(args.toArray(String[]::new))) {
                            if (withoutTtl.size() < 20) withoutTtl.add((String) k);
                        }
                    }
                } while (!"0".equals(cursor));
            }
        }
        return new RedisKeyAudit(count, withoutTtl, malformed);
    }

    @Override
    public String toString() {
        return keys + " keys, without TTL " + withoutTtl + ", malformed " + malformed;
    }
}
