package io.sluice.examples.spring;

import io.sluice.ConfigException;
import io.sluice.Sluice;
import io.sluice.testing.TestRedis;
import io.sluice.testing.TestRedisson;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The example application started as a user starts it ({@code SpringApplication.run} with command-line
 * arguments): what fails start-up, profiles, and the application's own Redisson client.
 */
class StartUpTest {
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aBadPropertyFailsStartUpNamingPropertyValueAndExpectedForm() {
        Throwable failure = catchThrowable(() -> start("--sluice.rules.posts.rate=ten/h").close());

        assertThat(configException(failure)).hasMessage("Invalid Sluice configuration: sluice.rules.posts.rate = \"ten/h\":"
                + " expected <permits>/<period> such as 10/1h, 40/1m, 5/10s, 100/s or 2/500ms (permits from 1 to 1000000000,"
                + " a period from 1ms to 366d)");
    }

    @Test
    void anUnknownSluicePropertyFailsStartUpAsInARulesFile() {
        Throwable failure = catchThrowable(() -> start("--sluice.rules.posts.colour=blue").close());

        assertThat(configException(failure)).hasMessageStartingWith(
                "Invalid Sluice configuration: sluice.rules.posts.colour = \"blue\": expected one of the rule properties [");
    }

    @Test
    void aYamlProfileChangesTheRules() throws Exception {
        try (ConfigurableApplicationContext context = start("--spring.profiles.active=strict")) {
            assertThat(context.getBean(Sluice.class).rules().get("posts").orElseThrow().methods())
                    .containsExactlyInAnyOrder("GET", "HEAD");
            assertThat(statuses(context, "/api/posts", 3)).containsExactly(200, 200, 429);
            // An operator passes the endpoint's security, and finds no endpoint: it is not exposed.
            assertThat(statuses(context, "/actuator/sluice", 1, "ops:ops-password")).as("the endpoint, not exposed")
                    .containsExactly(404);
        }
    }

    @Test
    void theApplicationsRedissonClientIsUsedAndLeftOpen() throws Exception {
        RedissonClient client = TestRedisson.client();
        try {
            Sluice sluice;
            // Nothing listens on sluice.redis.address: only the application's client can count.
            try (ConfigurableApplicationContext context = start(List.of(c -> c.getBeanFactory().registerSingleton("redisson", client)),
                    "--sluice.redis.address=redis://127.0.0.1:" + TestRedis.freePort(), "--sluice.await-backend=0s")) {
                sluice = context.getBean(Sluice.class);
                assertThat(statuses(context, "/api/posts", 6)).containsExactly(200, 200, 200, 200, 200, 429);
            }
            assertThat(client.isShutdown()).as("the application's client is left open").isFalse();
        } finally {
            client.shutdown();
        }
    }

    private List<Integer> statuses(ConfigurableApplicationContext context, String path, int requests) throws Exception {
        return statuses(context, path, requests, null);
    }

    /** {@code credentials} ({@code user:password}, HTTP Basic) or null for none. */
    private List<Integer> statuses(ConfigurableApplicationContext context, String path, int requests, String credentials)
            throws Exception {
        String port = context.getEnvironment().getProperty("local.server.port");
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
            if (credentials != null) {
                request.header("Authorization", "Basic "
                        + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
            }
            statuses.add(http.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode());
        }
        return statuses;
    }

    private static ConfigurableApplicationContext start(String... arguments) {
        return start(List.of(), arguments);
    }

    private static ConfigurableApplicationContext start(
            List<ApplicationContextInitializer<ConfigurableApplicationContext>> initializers,
            String... arguments) {
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--sluice.redis.address=" + TestRedis.address(),
                "--sluice.key-prefix=startup-" + UUID.randomUUID(), "--sluice.backend-timeout=5s"));
        args.addAll(List.of(arguments));
        SpringApplicationBuilder application = new SpringApplicationBuilder(ExampleApplication.class);
        initializers.forEach(application::initializers);
        return application.run(args.toArray(String[]::new));
    }

    private static ConfigException configException(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) if (t instanceof ConfigException e) return e;
        throw new AssertionError("no ConfigException in " + failure, failure);
    }
}
