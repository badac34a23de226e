package io.sluice.testing;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.redisson.api.RedissonClient;

/**
 * A Redisson client on the test Redis ({@link TestRedisson#client()}, the Redis started once per test JVM) for one test
 * class. A class registers one on a static field,
 * {@code @RegisterExtension static final TestRedissonClient redis = new TestRedissonClient();}, and asks it for
 * {@link #client()}: the client opens before the class's {@code @BeforeAll} methods and shuts down after its
 * {@code @AfterAll} methods, so that the servers and engines a class closes there are closed first. A class nested in it
 * shares the outer class's client.
 */
public final class TestRedissonClient implements BeforeAllCallback, AfterAllCallback {
    private RedissonClient client;
    /** Classes started and not yet ended: a nested class's callbacks come inside its outer class's. */
    private int classes;

    @Override
    public synchronized void beforeAll(ExtensionContext context) {
        if (classes++ == 0) client = TestRedisson.client();
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (--classes > 0) return;
        RedissonClient open = client;
        client = null;
        if (open != null) open.shutdown();   // null: it failed to open
    }

    /** The class's client, from its {@code @BeforeAll} methods to its {@code @AfterAll} methods. */
    public synchronized RedissonClient client() {
        if (client == null) {
            throw new IllegalStateException("no client outside the class's tests: register it with @RegisterExtension on a static field");
        }
        return client;
    }
}
