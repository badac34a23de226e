package io.sluice.filter;

import io.sluice.Sluice;
import io.sluice.rule.Rule;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A concurrency permit is returned when its request ends, however it ends: a client that closes its socket
 * before, during or after the response, or while it waits for a permit, in a sync or an async servlet. Each
 * case over a raw socket; afterwards Redis holds no lease and the next request is admitted. The streams
 * would run for {@link #STREAM_MS}: a permit returned long before that was returned because the client left.
 */
class DisconnectTest {
    private static final long STREAM_MS = 20_000;
    /** Far below the stream's length and the lease's 30 s, far above a broken pipe's few 100 ms steps. */
    private static final Duration RETURNED_WITHIN = Duration.ofSeconds(5);

    @BeforeEach
    void reset() {
        TestServlets.Stream.reset();
    }

    @ParameterizedTest
    @EnumSource(Containers.Kind.class)
    void aClientThatLeavesMidResponseGivesThePermitBack(Containers.Kind kind) throws Exception {
        try (Containers.Running server = kind.start(HttpContract.initParams(prefix()))) {
            for (String path : new String[]{"/stream", "/astream"}) {
                int startedBefore = TestServlets.Stream.started.get();
                try (Socket client = request(server, path + "?ms=" + STREAM_MS)) {
                    assertThat(readStatus(client)).as(path).isEqualTo(200);
                    await().atMost(Duration.ofSeconds(10)).until(() -> TestServlets.Stream.started.get() > startedBefore);
                }
                long left = System.nanoTime();
                assertPermitBack(server, "stream", left);
                assertThat(status(server, path + "?ms=1")).as(path).isEqualTo(200);
                // The permit goes back once the response is complete, a moment after its status line was read.
                assertPermitBack(server, "stream", System.nanoTime());
            }
            // Both 20 s streams ended within seconds, on a write into a connection the client had closed (a
            // container may also see a broken write on its own side of a closing connection: at least these two).
            await().atMost(RETURNED_WITHIN).until(() -> TestServlets.Stream.ended.get() == 4);
            assertThat(TestServlets.Stream.broken.get()).isGreaterThanOrEqualTo(2);
        }
    }

    @ParameterizedTest
    @EnumSource(Containers.Kind.class)
    void aClientThatLeavesBeforeItsResponseOrAfterItGivesThePermitBack(Containers.Kind kind) throws Exception {
        try (Containers.Running server = kind.start(HttpContract.initParams(prefix()))) {
            // Before any byte of the response: sent, then closed at once.
            try (Socket client = request(server, "/stream?ms=300")) {
                client.setSoLinger(true, 0);
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> TestServlets.Stream.ended.get() == 1);
            assertPermitBack(server, "stream", System.nanoTime());
            // After the whole response.
            assertThat(status(server, "/stream?ms=200")).isEqualTo(200);
            assertPermitBack(server, "stream", System.nanoTime());
        }
    }

    @ParameterizedTest
    @EnumSource(Containers.Kind.class)
    void aClientThatLeavesWhileWaitingForAPermitDoesNotKeepIt(Containers.Kind kind) throws Exception {
        try (Containers.Running server = kind.start(HttpContract.initParams(prefix()))) {
            try (Socket holder = request(server, "/wstream?ms=1500")) {
                await().atMost(Duration.ofSeconds(10)).until(() -> TestServlets.Stream.started.get() == 1);
                // Waits (wait=10s) for the holder's permit, then goes away before it is handed over.
                try (Socket waiter = request(server, "/wstream?ms=" + STREAM_MS)) {
                    Thread.sleep(300); // the waiter is waiting in the filter by now; there is no event to wait on
                }
                readToEnd(holder);
            }
            // The waiter gets the permit when the holder ends, streams into a closed socket, and gives it back.
            long holderDone = System.nanoTime();
            assertPermitBack(server, "wstream", holderDone);
            assertThat(status(server, "/wstream?ms=1")).isEqualTo(200);
        }
    }

    private static void assertPermitBack(Containers.Running server, String ruleName, long sinceNanos) {
        Sluice sluice = server.filter().sluice();
        Rule rule = sluice.rules().get(ruleName).orElseThrow();
        await().atMost(RETURNED_WITHIN).pollInterval(Duration.ofMillis(20))
                .until(() -> sluice.availablePermits(rule, "*").toCompletableFuture().join() == 1);
        long millis = (System.nanoTime() - sinceNanos) / 1_000_000;
        assertThat(millis).as("permit back after ms").isLessThan(RETURNED_WITHIN.toMillis());
    }

    private static Socket request(Containers.Running server, String pathAndQuery) throws IOException {
        return request(server, pathAndQuery, "");
    }

    private static Socket request(Containers.Running server, String pathAndQuery, String headers) throws IOException {
        Socket s = new Socket("127.0.0.1", server.port());
        s.setSoTimeout(30_000);
        OutputStream out = s.getOutputStream();
        out.write(("GET " + pathAndQuery + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User: u\r\n" + headers + "\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return s;
    }

    /** A whole exchange: the status, then the rest of the response up to the server closing the connection. */
    private static int status(Containers.Running server, String pathAndQuery) throws IOException {
        try (Socket s = request(server, pathAndQuery, "Connection: close\r\n")) {
            int status = readStatus(s);
            s.getInputStream().transferTo(OutputStream.nullOutputStream());
            return status;
        }
    }

    /** Reads up to the end of the status line: {@code HTTP/1.1 200 ...}. */
    private static int readStatus(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) >= 0 && c != '\n') line.append((char) c);
        String[] parts = line.toString().split(" ");
        return Integer.parseInt(parts[1]);
    }

    private static void readToEnd(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        byte[] buffer = new byte[1024];
        // Chunked until the last chunk: the stream's end is the server closing or the terminating chunk.
        StringBuilder tail = new StringBuilder();
        int n;
        while ((n = in.read(buffer)) >= 0) {
            tail.append(new String(buffer, 0, n, StandardCharsets.US_ASCII));
            if (tail.indexOf("\r\n0\r\n\r\n") >= 0) return;
            if (tail.length() > 4096) tail.delete(0, tail.length() - 16);
        }
    }

    private static String prefix() {
        return "disc" + UUID.randomUUID().toString().substring(0, 8);
    }
}
