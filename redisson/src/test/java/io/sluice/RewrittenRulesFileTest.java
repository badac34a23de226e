package io.sluice;

import io.sluice.redisson.CallerClockBackend;
import io.sluice.rule.Rule;
import io.sluice.testing.LogRecorder;
import io.sluice.testing.MutableClock;
import io.sluice.testing.TestRedissonClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A polled rules file caught while it is rewritten in place never turns limits off, on a real Redis with a real
 * file (issue 21): an empty file or one without rules is refused, a file is applied only once two polls in a row
 * read it the same, and polling goes on whatever a file says about {@code sluice.reload}. On the previous main a
 * truncated file was applied (0 rules), stopped the polling, and a used-up key got 6 of 6 requests through.
 * Windows run on the test's clock, which never moves, so every count is exact.
 */
class RewrittenRulesFileTest {
    @RegisterExtension
    static final TestRedissonClient redisson = new TestRedissonClient();
    private final MutableClock clock = new MutableClock(System.currentTimeMillis());
    private final String prefix = "rewrite" + UUID.randomUUID().toString().substring(0, 8);
    private LogRecorder log;

    @TempDir
    Path dir;

    @BeforeEach
    void record() {
        log = LogRecorder.on(Sluice.class.getName());
    }

    @AfterEach
    void stopRecording() {
        log.close();
    }

    private Sluice engine(Path file) {
        return Sluice.builder().backend(CallerClockBackend.of(redisson.client(), clock)).clock(clock).ticker(clock)
                .config("file:" + file).build();
    }

    private String file(String reload, String... rules) {
        StringBuilder sb = new StringBuilder("sluice.key-prefix=" + prefix + "\n");
        if (reload != null) sb.append("sluice.reload=").append(reload).append('\n');
        for (String r : rules) sb.append(r).append('\n');
        return sb.toString();
    }

    /** As an operator should: written elsewhere, moved into place whole. */
    private Path replace(String name, String content) throws IOException {
        Path tmp = dir.resolve(name + ".tmp");
        Files.writeString(tmp, content, StandardCharsets.UTF_8);
        return Files.move(tmp, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** As {@code cat > file} and {@code Files.writeString} do: truncated, then written, here only its first bytes. */
    private static void rewriteInPlace(Path file, String content, int bytes) throws IOException {
        byte[] all = content.getBytes(StandardCharsets.UTF_8);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(ByteBuffer.wrap(all, 0, Math.min(bytes, all.length)));
        }
    }

    private static int admitted(Sluice s, String rule, String key, int n) {
        Rule r = s.rules().get(rule).orElseThrow(() -> new AssertionError("no rule " + rule + " in effect"));
        int admitted = 0;
        for (int i = 0; i < n; i++) {
            try (Admission a = s.admit(List.of(r), KeySource.fixed(key)).toCompletableFuture().join()) {
                assertThat(a.decisions()).allMatch(d -> d.outcome() == Decision.Outcome.DECIDED);
                if (a.allowed()) admitted++;
            }
        }
        return admitted;
    }

    private static long permits(Sluice s, String rule) {
        return s.rules().get(rule).orElseThrow().rate().orElseThrow().permits();
    }

    /**
     * The run, with the engine's own poller every 200 ms: the file is truncated and stays empty for many
     * polls, then is written again. The used-up key stays limited throughout, and the next valid file is applied.
     */
    @Test
    void aFileTruncatedAndWrittenAgainKeepsTheLimitAndPollingGoesOn() throws IOException {
        String original = file("200ms", "sluice.rules.posts.rate=3/1h");
        Path path = replace("rules.properties", original);
        try (Sluice s = engine(path)) {
            assertThat(admitted(s, "posts", "alice", 4)).isEqualTo(3);
            rewriteInPlace(path, original, 0);
            await("the empty file refused (or applied)").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(20))
                    .until(() -> s.rules().get("posts").isEmpty()
                            || log.messages(Level.SEVERE).stream().anyMatch(m -> m.contains("sluice.rules = (none)")));
            assertThat(s.rules().all()).as("the rules in effect after the empty file").hasSize(1);
            assertThat(permits(s, "posts")).isEqualTo(3);
            assertThat(admitted(s, "posts", "alice", 6)).as("the used-up key while the file is empty").isZero();
            rewriteInPlace(path, original, Integer.MAX_VALUE);
            // The next valid file is applied: the poller is still running.
            replace("rules.properties", file("200ms", "sluice.rules.posts.rate=4/1h"));
            await("4/1h applied").atMost(Duration.ofSeconds(20)).until(() -> permits(s, "posts") == 4);
            assertThat(admitted(s, "posts", "alice", 3)).isOne();
            assertThat(log.messages(Level.SEVERE)).as("the empty file, refused once").hasSize(1);
            assertThat(log.messages(Level.SEVERE).get(0)).contains("sluice.allow-no-rules=true", "keeps serving");
        }
    }

    /**
     * Polled by hand: a file caught half-written (here without its second rule) is not applied; the whole file is,
     * once two polls in a row read it the same.
     */
    @Test
    void aHalfWrittenFileIsNeverAppliedAndTheWholeOneIsOnceItHoldsStill() throws IOException {
        String before = file("1h", "sluice.rules.a.rate=3/1h", "sluice.rules.b.rate=2/1h");
        Path path = replace("rules.properties", before);
        try (Sluice s = engine(path)) {
            assertThat(admitted(s, "b", "bob", 3)).isEqualTo(2);
            String after = file("1h", "sluice.rules.a.rate=3/1h", "sluice.rules.b.rate=2/1h", "sluice.rules.c.rate=5/1h");
            int half = after.indexOf("sluice.rules.b");
            rewriteInPlace(path, after, half);
            s.pollRulesSource();
            assertThat(s.rules().get("b")).as("rule b, missing from the half file, still in effect").isPresent();
            assertThat(admitted(s, "b", "bob", 3)).isZero();
            rewriteInPlace(path, after, Integer.MAX_VALUE);
            s.pollRulesSource();
            assertThat(s.rules().get("c")).as("changed since the last poll: not yet").isEmpty();
            s.pollRulesSource();
            assertThat(s.rules().get("c")).as("read the same twice: applied").isPresent();
            assertThat(admitted(s, "b", "bob", 3)).isZero();
            assertThat(admitted(s, "c", "carol", 6)).isEqualTo(5);
            assertThat(log.messages(Level.SEVERE)).isEmpty();
        }
    }

    /** A file that keeps its settings but has no rule left is refused unless it says it means it. */
    @Test
    void aFileThatRemovesEveryRuleIsRefusedUnlessItAllowsIt() throws IOException {
        Path path = replace("rules.properties", file("1h", "sluice.rules.posts.rate=3/1h", "sluice.rules.c.concurrency=1"));
        try (Sluice s = engine(path)) {
            assertThat(admitted(s, "posts", "alice", 4)).isEqualTo(3);
            replace("rules.properties", file("1h"));
            s.pollRulesSource();
            s.pollRulesSource();
            s.pollRulesSource();
            assertThat(s.rules().all()).hasSize(2);
            assertThat(admitted(s, "posts", "alice", 6)).isZero();
            assertThat(log.messages(Level.SEVERE)).as("logged once").singleElement().asString()
                    .contains("sluice.rules = (none)", "2 rules in effect", "sluice.allow-no-rules=true");
            // The same from code.
            assertThatThrownBy(() -> s.reload(Map.of("sluice.key-prefix", prefix)))
                    .isInstanceOf(ConfigException.class).hasMessageContaining("sluice.rules = (none)");
            assertThat(s.rules().all()).hasSize(2);

            replace("rules.properties", file("1h", "sluice.allow-no-rules=true"));
            s.pollRulesSource();
            s.pollRulesSource();
            assertThat(s.rules().all()).as("turned off on purpose").isEmpty();
            replace("rules.properties", file("1h", "sluice.rules.posts.rate=3/1h"));
            s.pollRulesSource();
            s.pollRulesSource();
            assertThat(admitted(s, "posts", "alice", 2)).as("the counter survived").isZero();
        }
    }

    /**
     * {@code sluice.reload} is fixed at start: a file that sets it to {@code 0s} (or leaves it out, as an empty file
     * does) is applied with a warning and the engine's poller goes on reading the file.
     */
    @Test
    void aFileChangingSluiceReloadIsAppliedAndPollingGoesOn() throws IOException {
        Path path = replace("rules.properties", file("100ms", "sluice.rules.posts.rate=3/1h"));
        try (Sluice s = engine(path)) {
            assertThat(admitted(s, "posts", "alice", 4)).isEqualTo(3);
            replace("rules.properties", file("0s", "sluice.rules.posts.rate=4/1h"));
            await("4/1h applied").atMost(Duration.ofSeconds(20)).until(() -> permits(s, "posts") == 4);
            assertThat(s.rules().settings().reload()).isEqualTo(Duration.ofMillis(100));
            assertThat(log.messages(Level.WARNING)).anyMatch(w -> w.contains("sluice.reload") && w.contains("restart"));
            assertThat(admitted(s, "posts", "alice", 3)).isOne();
            replace("rules.properties", file(null, "sluice.rules.posts.rate=6/1h"));
            await("6/1h applied: still polled").atMost(Duration.ofSeconds(20)).until(() -> permits(s, "posts") == 6);
            assertThat(admitted(s, "posts", "alice", 4)).isEqualTo(2);
        }
    }
}
