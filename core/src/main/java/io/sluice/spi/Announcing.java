package io.sluice.spi;

import java.time.Duration;
import java.util.concurrent.CompletionStage;

/**
 * A backend shared by several servers, where each server announces itself, so that every server knows how many share
 * the limits: while the store cannot answer, {@code on-backend-failure=local} divides each limit by that count. A
 * backend without this capability is used by one server alone (an in-JVM store), which is what the engine assumes.
 */
public interface Announcing {

    /**
     * Records, in one atomic step, that server {@code serverId} is alive now (on the store's own clock), forgets the
     * servers not heard from for {@code goneAfter}, and counts those left. The record under {@code key} expires when
     * no server announces itself for {@code goneAfter}.
     *
     * @param key       where the servers are recorded (the engine names it under the key prefix)
     * @param serverId  this server's id, random per engine
     * @param goneAfter how long a server that stopped announcing itself still counts
     * @return the servers alive, this one included
     */
    CompletionStage<Integer> announce(String key, String serverId, Duration goneAfter);
}
