package io.sluice.redisson;

import io.sluice.spi.LeaseOutcome;
import io.sluice.spi.LeaseRequest;
import org.redisson.api.RScript;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * {@code acquire.lua} (after {@code wake.lua}): one try to take a permit of a semaphore under the request's limit and
 * permit id, with its lease; reclaims expired leases and wakes waiters on the way.
 */
final class AcquireScript {
    private static final String TEXT = LuaScript.of("shared/wake.lua", "lease/acquire.lua");
    private static final long ACQUIRED = 1;

    private final RScript scripts;

    AcquireScript(RScript scripts) {
        this.scripts = scripts;
    }

    /**
     * @param now            this server's time (ms), the time base of leases
     * @param publishCommand how the script wakes waiters ({@link RedissonBackend}'s publish command)
     * @return the permit (or none), the permits free, and when the earliest lease held expires
     */
    CompletionStage<LeaseWaiters.Answer> call(LeaseRequest r, long now, String publishCommand) {
        String name = r.key();
        String permitId = r.permitId();
        CompletionStage<List<Long>> result = scripts.evalAsync(name, RScript.Mode.READ_WRITE, TEXT, RScript.ReturnType.LIST,
                RedissonNames.semaphore(name),
                Integer.toString(r.limit()), Long.toString(now + r.lease().toMillis()), Long.toString(now), permitId,
                Long.toString(keyTtl(r)), publishCommand);
        return result.thenApply(v -> new LeaseWaiters.Answer(
                new LeaseOutcome(v.get(0) == ACQUIRED ? permitId : null, v.get(1).intValue()), v.get(2)));
    }

    /** Idle semaphores vanish; live ones are kept alive by every acquire and renewal (at a third of the lease). */
    static long keyTtl(LeaseRequest r) {
        long lease = Math.min(r.lease().toMillis(), Long.MAX_VALUE / 8);
        long wait = Math.min(r.waitTime().toMillis(), Long.MAX_VALUE / 8);
        return Math.max(2 * lease, 10_000L) + wait;
    }
}
