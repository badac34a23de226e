package io.sluice.filter;

import io.sluice.spi.Algorithm;
import io.sluice.testing.Latencies;
import io.sluice.testing.RedisKeyAudit;
import io.sluice.testing.Resp;
import io.sluice.testing.TestRedis;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The filter on real Jetty and Tomcat, fed a few thousand hostile requests over raw sockets (so that any byte
 * can be sent): CR/LF and bare CR, {@code {}} hash tags, 64 KB+ values, invalid UTF-8 raw and percent-encoded,
 * malformed cookies and query strings, spoofed {@code Forwarded} / {@code X-Forwarded-For} from a trusted proxy.
 * From a seeded generator, so a failure reproduces. No response is a 500, none takes long, none shows an internal
 * (stack trace, class name, Redis address), and every Redis key written has Sluice's shape and a TTL. Rules of every
 * algorithm count the same hostile keys (three sliding logs, one rule per algorithm on Redis TIME).
 */
@Timeout(300)
class FilterFuzzIT {
    private static final int REQUESTS = 2_500;
    private static final long SEED = 20261201L;
    private static final String[] PATHS = {"/open", "/api/posts", "/dry", "/once/forward"};
    private static final String[] METHODS = {"GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "G{E}T", "GET\u00ff"};
    /** Never in any response. */
    private static final List<String> INTERNALS = List.of("\tat ", "io.sluice", "org.redisson", "Redisson", "redis://",
            "RedisException", "Caused by");
    /**
     * Never in a response that went through the filter. A request the container itself refuses while parsing it
     * (400, 414, 431) gets the container's own error page, which on Tomcat names the parser's exception: that is
     * the container's configuration (its ErrorReportValve), not Sluice's.
     */
    private static final List<String> DIAGNOSTICS = List.of("Exception", "java.lang", "NullPointer");
    private static final java.util.Set<Integer> CONTAINER_PARSE_ERRORS = java.util.Set.of(400, 414, 431);

    @ParameterizedTest
    @EnumSource(Containers.Kind.class)
    void hostileRequestsNeverBreakTheFilter(Containers.Kind kind) throws Exception {
        String prefix = "fz" + UUID.randomUUID().toString().substring(0, 8);
        int redisPort = URI.create(TestRedis.address()).getPort();
        Map<String, String> params = new LinkedHashMap<>(HttpContract.initParams(prefix));
        params.put("sluice.trusted-proxies", "127.0.0.1, ::1");
        params.put("sluice.rules.fz-ip.paths", "/open, /dry");
        params.put("sluice.rules.fz-ip.key", "ip");
        params.put("sluice.rules.fz-ip.rate", "100000/1h");
        params.put("sluice.rules.fz-cookie.paths", "/open");
        params.put("sluice.rules.fz-cookie.key", "cookie:sid");
        params.put("sluice.rules.fz-cookie.rate", "100000/1h");
        params.put("sluice.rules.fz-param.paths", "/open, /once/*");
        params.put("sluice.rules.fz-param.key", "param:q+header:X-User");
        params.put("sluice.rules.fz-param.rate", "3/1h");
        // Every algorithm on Redis TIME, on the same hostile keys (a leaky bucket without a queue: no request waits).
        for (Algorithm a : Algorithm.values()) {
            if (a == Algorithm.SLIDING_LOG) continue; // fz-ip, fz-cookie and fz-param above
            String rule = "sluice.rules.fz-" + a.id() + ".";
            params.put(rule + "paths", "/open, /api/posts");
            params.put(rule + "key", "header:X-User+cookie:sid");
            params.put(rule + "rate", "3/1h");
            params.put(rule + "algorithm", a.id());
        }
        params.put("sluice.rules.fz-slots.paths", "/open");
        params.put("sluice.rules.fz-slots.key", "header:X-User");
        params.put("sluice.rules.fz-slots.concurrency", "1000");
        Random random = new Random(SEED + kind.ordinal());
        Latencies latencies = new Latencies();
        Map<Integer, Integer> statuses = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        try (Containers.Running server = kind.start(params)) {
            for (int i = 0; i < REQUESTS; i++) {
                byte[] request = hostileRequest(random);
                long start = System.nanoTime();
                String response = exchange(server.port(), request);
                long nanos = System.nanoTime() - start;
                latencies.record(nanos);
                int status = status(response);
                statuses.merge(status, 1, Integer::sum);
                String shown = "request " + i + " " + preview(request) + " -> " + preview(response.getBytes(StandardCharsets.ISO_8859_1));
                if (status >= 500) problems.add("status " + status + ": " + shown);
                if (nanos > 5_000_000_000L) problems.add("took " + nanos / 1_000_000 + " ms: " + shown);
                for (String internal : INTERNALS) {
                    if (response.contains(internal)) problems.add("shows '" + internal + "': " + shown);
                }
                for (String diagnostic : CONTAINER_PARSE_ERRORS.contains(status) ? List.<String>of() : DIAGNOSTICS) {
                    if (response.contains(diagnostic)) problems.add("shows '" + diagnostic + "': " + shown);
                }
                if (response.contains("127.0.0.1:" + redisPort)) problems.add("shows the Redis address: " + shown);
                if (problems.size() > 10) break;
            }
        }
        RedisKeyAudit audit = RedisKeyAudit.of(redisPort, prefix);
        Map<String, Long> keysByAlgorithm = new TreeMap<>();
        try (Resp resp = Resp.connect(redisPort, Duration.ofSeconds(10))) {
            for (Algorithm a : Algorithm.values()) {
                if (a == Algorithm.SLIDING_LOG) continue;
                keysByAlgorithm.put(a.id(), (long) ((List<?>) resp.call("KEYS", prefix + ":{fz-" + a.id() + ":*")).size());
            }
        }
        System.out.println("fuzz " + kind + ": " + REQUESTS + " hostile requests (seed " + (SEED + kind.ordinal()) + "), statuses "
                + statuses + ", time per request " + latencies.summary() + "; Redis: " + audit + ", keys per algorithm on Redis TIME "
                + keysByAlgorithm);
        assertThat(problems).isEmpty();
        assertThat(statuses.keySet()).as("the limiter was reached and answered").contains(200, 429);
        assertThat(audit.keys).isPositive();
        assertThat(audit.malformed).as("keys not of Sluice's shape").isEmpty();
        assertThat(audit.withoutTtl).as("keys without a TTL").isEmpty();
        assertThat(keysByAlgorithm.values()).as("every algorithm counted hostile keys " + keysByAlgorithm).allMatch(n -> n > 0);
    }

    /** Sends the bytes, reads the whole response (the request asks to close); "" if the server just hung up. */
    private static String exchange(int port, byte[] request) throws IOException {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            ByteArrayOutputStream response = new ByteArrayOutputStream();
            try {
                out.write(request);
                out.flush();
                InputStream in = socket.getInputStream();
                byte[] buf = new byte[8192];
                int n;
                while ((n = in.read(buf)) >= 0 && response.size() < 1_000_000) response.write(buf, 0, n);
            } catch (SocketTimeoutException e) {
                return "HTTP/1.1 999 no answer within 10 s\r\n\r\n" + response.toString(StandardCharsets.ISO_8859_1);
            } catch (IOException e) {
                // reset by a server refusing the request outright: not a 500, and bounded
            }
            return response.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private static int status(String response) {
        if (!response.startsWith("HTTP/1.1 ")) return 0;
        try {
            return Integer.parseInt(response.substring(9, 12));
        } catch (RuntimeException e) {
            return 0;
        }
    }

    private static String preview(byte[] bytes) {
        String s = new String(bytes, 0, Math.min(bytes.length, 300), StandardCharsets.ISO_8859_1)
                .replace("\r", "\\r").replace("\n", "\\n");
        return bytes.length > 300 ? s + "...(" + bytes.length + " bytes)" : s;
    }

    // ---- the generator ----

    private static byte[] hostileRequest(Random r) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        String method = r.nextInt(10) == 0 ? pick(r, METHODS) : pick(r, new String[] {"GET", "POST"});
        write(b, method + " " + path(r) + (r.nextBoolean() ? "?" + query(r) : "") + " HTTP/1.1\r\n");
        write(b, "Host: 127.0.0.1\r\nConnection: close\r\n");
        if (r.nextInt(4) > 0) header(b, "X-User", value(r));
        if (r.nextBoolean()) header(b, "Cookie", cookie(r));
        if (r.nextBoolean()) header(b, "X-Forwarded-For", forwardedFor(r));
        if (r.nextBoolean()) header(b, "Forwarded", forwarded(r));
        if (r.nextInt(16) == 0) b.writeBytes(rawLine(r));
        if (method.equals("POST") || method.equals("PUT")) write(b, "Content-Length: 0\r\n");
        write(b, "\r\n");
        return b.toByteArray();
    }

    private static void header(ByteArrayOutputStream b, String name, byte[] value) {
        write(b, name + ": ");
        b.writeBytes(value);
        write(b, "\r\n");
    }

    private static String path(Random r) {
        String base = pick(r, PATHS);
        return switch (r.nextInt(20)) {
            case 0 -> base + "/../../etc/passwd";
            case 1 -> base + "/%2e%2e/%2e%2e/";
            case 2 -> base + ";jsessionid=" + token(r, 20);
            case 3 -> base + "/%ZZ%";
            case 4 -> base + "/%C0%AF%FF%FE";
            case 5 -> base + "/{" + token(r, 5) + "}";
            case 6 -> base + "/" + "a".repeat(66_000);
            case 7 -> "//" + base.substring(1) + "//";
            case 8 -> base + "/%00%0d%0aX-Injected:%201";
            default -> base;
        };
    }

    private static String query(Random r) {
        return switch (r.nextInt(10)) {
            case 0 -> "q=%C3%28%E2%82%FF";
            case 1 -> "q=" + "x".repeat(70_000);
            case 2 -> "q={" + token(r, 8) + "}&q=2&q=3";
            case 3 -> "q=%";
            case 4 -> "=&=&q&&";
            case 5 -> "q=%0d%0aSET%20x%201%0d%0a";
            case 6 -> "q=" + token(r, 3);
            default -> "q=" + token(r, 12);
        };
    }

    /** A header value: printable, hash tags, Redis protocol, invalid UTF-8 bytes, bare CR, huge or empty. */
    private static byte[] value(Random r) {
        return switch (r.nextInt(12)) {
            case 0 -> "{user}".getBytes(StandardCharsets.US_ASCII);
            case 1 -> ("}{" + token(r, 4) + "}{").getBytes(StandardCharsets.US_ASCII);
            case 2 -> "*3\\r\\n$3\\r\\nSET\\r\\n".getBytes(StandardCharsets.US_ASCII);
            case 3 -> new byte[] {'a', (byte) 0xC3, (byte) 0x28, (byte) 0xFF, (byte) 0xFE, 'b'};
            case 4 -> new byte[] {'a', '\r', 'b'};
            case 5 -> "x".repeat(60_000).getBytes(StandardCharsets.US_ASCII);
            case 6 -> "y".repeat(70_000).getBytes(StandardCharsets.US_ASCII);
            case 7 -> new byte[0];
            case 8 -> "évil ünïcödé 雪".getBytes(StandardCharsets.UTF_8);
            default -> token(r, 1 + r.nextInt(3)).getBytes(StandardCharsets.US_ASCII);
        };
    }

    private static byte[] cookie(Random r) {
        String v = switch (r.nextInt(8)) {
            case 0 -> "sid";
            case 1 -> ";;;=;";
            case 2 -> "sid=\"unterminated";
            case 3 -> "sid={" + token(r, 4) + "}; sid=2";
            case 4 -> "sid=" + "z".repeat(20_000);
            case 5 -> "a=1; ".repeat(500) + "sid=" + token(r, 4);
            default -> "sid=" + token(r, 6);
        };
        return v.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] forwardedFor(Random r) {
        String v = switch (r.nextInt(8)) {
            case 0 -> "1.2.3.4, , ,evil";
            case 1 -> "999.1.1.1";
            case 2 -> "unknown";
            case 3 -> "[::1]:80, 2001:db8::" + Integer.toHexString(r.nextInt(65536));
            case 4 -> String.join(", ", java.util.Collections.nCopies(2_000, "10.0.0." + r.nextInt(256)));
            case 5 -> "{" + token(r, 4) + "}";
            default -> r.nextInt(256) + "." + r.nextInt(256) + "." + r.nextInt(256) + "." + r.nextInt(256);
        };
        return v.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] forwarded(Random r) {
        String v = switch (r.nextInt(7)) {
            case 0 -> "for=\"[2001:db8:cafe::17]:4711\";proto=http";
            case 1 -> "for=unknown";
            case 2 -> "for=;;,,for=";
            case 3 -> "for=\"_hidden\", for=\"[::1\"";
            case 4 -> "for=" + "1".repeat(30_000);
            default -> "for=" + r.nextInt(256) + ".0.0." + r.nextInt(256) + ";by=x";
        };
        return v.getBytes(StandardCharsets.ISO_8859_1);
    }

    /** A line that is not a valid header at all: folding, a bare LF, a name with spaces, NUL. */
    private static byte[] rawLine(Random r) {
        String v = switch (r.nextInt(4)) {
            case 0 -> "X-User: a\r\n continued\r\n";
            case 1 -> "X-User: a\nX-Other: b\r\n";
            case 2 -> "Bad Header Name: x\r\n";
            default -> "X-User: \u0000nul\r\n";
        };
        return v.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String token(Random r, int length) {
        String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-_";
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < length; i++) s.append(alphabet.charAt(r.nextInt(alphabet.length())));
        return s.toString();
    }

    private static String pick(Random r, String[] options) {
        return options[r.nextInt(options.length)];
    }

    private static void write(ByteArrayOutputStream b, String s) {
        b.writeBytes(s.getBytes(StandardCharsets.ISO_8859_1));
    }
}
