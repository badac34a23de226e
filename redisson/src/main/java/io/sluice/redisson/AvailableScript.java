package io.sluice.redisson;

import io.sluice.spi.LeaseRequest;
import org.redisson.api.RScript;

import java.util.List;
import java.util.concurrent.CompletionStage;

/** {@code available.lua}: a semaphore's free permits under the request's limit, counting only leases not expired. */
final class AvailableScript {
    private static final String TEXT = LuaScript.of("lease/available.lua");

    private final RScript scripts;

    AvailableScript(RScript scripts) {
        this.scripts = scripts;
    }

    /** @param now this server's time (ms) */
    CompletionStage<Integer> call(LeaseRequest r, long now) {
        String name = r.key();
        return scripts.<Long>evalAsync(name, RScript.Mode.READ_ONLY, TEXT, RScript.ReturnType.LONG,
                        List.<Object>of(RedissonNames.suffix(name, "timeout")), Integer.toString(r.limit()), Long.toString(now))
                .thenApply(Long::intValue);
    }
}
