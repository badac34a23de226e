package io.sluice.redisson;

import io.sluice.spi.LeaseRequest;
import org.redisson.api.RScript;

import java.util.concurrent.CompletionStage;

/**
 * {@code release.lua} (after {@code wake.lua}): returns a permit and wakes waiters; a permit not held (released
 * already, expired, or whose acquire has not reached Redis yet) leaves a tombstone for one lease, so that an acquire
 * of that id arriving later takes nothing.
 */
final class ReleaseScript {
    private static final String TEXT = LuaScript.of("shared/wake.lua", "lease/release.lua");
    private static final long RELEASED = 1;

    private final RScript scripts;

    ReleaseScript(RScript scripts) {
        this.scripts = scripts;
    }

    /**
     * @param now            this server's time (ms)
     * @param publishCommand how the script wakes waiters
     * @return true the first time, false for a permit not held
     */
    CompletionStage<Boolean> call(LeaseRequest r, String permitId, long now, String publishCommand) {
        String name = r.key();
        long lease = Math.min(r.lease().toMillis(), Long.MAX_VALUE / 8);
        return scripts.<Long>evalAsync(name, RScript.Mode.READ_WRITE, TEXT, RScript.ReturnType.LONG,
                        RedissonNames.semaphore(name),
                        permitId, Integer.toString(r.limit()), publishCommand, Long.toString(now + lease), Long.toString(now),
                        Long.toString(lease))
                .thenApply(v -> v == RELEASED);
    }
}
