package io.sluice.redisson;

import org.redisson.api.RedissonClient;
import org.redisson.api.options.PlainOptions;
import org.redisson.client.codec.StringCodec;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * The overrides' version, read by every server once a second: one plain {@code GET} (0 when none), not a script, so
 * that the poll adds nothing to the scripts' calls.
 */
final class OverridesVersion {
    private final RedissonClient redisson;
    private final Duration timeout;

    OverridesVersion(RedissonClient redisson, Duration timeout) {
        this.redisson = redisson;
        this.timeout = timeout;
    }

    CompletionStage<Long> call(String prefix) {
        String key = OverrideKeys.of(prefix).get(1).toString();
        return redisson.<String>getBucket(PlainOptions.name(key).codec(StringCodec.INSTANCE).timeout(timeout).retryAttempts(0))
                .getAsync().thenApply(v -> v == null ? 0L : Long.parseLong(v));
    }
}
