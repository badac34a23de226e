package io.sluice.redisson;

import io.sluice.spi.LeaseRequest;
import org.redisson.api.RScript;

import java.util.List;
import java.util.concurrent.CompletionStage;

/** {@code renew.lua}: extends a held permit's lease, and keeps the semaphore alive as an acquire does. */
final class RenewScript {
    private static final String TEXT = LuaScript.of("lease/renew.lua");
    private static final long RENEWED = 1;

    private final RScript scripts;

    RenewScript(RScript scripts) {
        this.scripts = scripts;
    }

    /**
     * @param now this server's time (ms)
     * @return true when renewed, false when the permit is gone
     */
    CompletionStage<Boolean> call(LeaseRequest r, String permitId, long now) {
        String name = r.key();
        return scripts.<Long>evalAsync(name, RScript.Mode.READ_WRITE, TEXT, RScript.ReturnType.LONG,
                        List.<Object>of(name, RedissonNames.suffix(name, "timeout")),
                        permitId, Long.toString(now + r.lease().toMillis()), Long.toString(AcquireScript.keyTtl(r)))
                .thenApply(v -> v == RENEWED);
    }
}
