package io.sluice.filter;

import io.sluice.testing.TestRedis;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code exempt}, {@code key=user|ip} and {@code when} through the filter, over real HTTP, on real Redis and a real
 * container; run once per container. Requests go over sockets of their own, from 127.0.0.1 (an ordinary peer) or
 * from 127.0.0.2 (the trusted proxy), so that a forwarded address is believed from the one and not from the other.
 * The application's own authentication filter runs before Sluice: it names the user and roles, and sets the
 * attribute {@code example.trusted} after its own check.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AudienceHttpContract {
    private static final String CLIENT = "127.0.0.1";
    private static final String PROXY = "127.0.0.2";
    private static final int HOUR = 3600;
    private final Containers.Kind kind;
    private Containers.Running server;

    AudienceHttpContract(Containers.Kind kind) {
        this.kind = kind;
    }

    /**
     * The application's authentication, before Sluice: {@code X-Demo-User} and {@code X-Demo-Roles} stand for a login,
     * {@code X-Demo-Trusted} for a check a client cannot forge (a client certificate, say): {@code yes} sets the
     * attribute to {@code Boolean.TRUE}, {@code text} to the text {@code "true"}.
     */
    public static final class DemoAuthentication implements Filter {
        @Override
        public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
                throws IOException, ServletException {
            HttpServletRequest http = (HttpServletRequest) request;
            String trusted = http.getHeader("X-Demo-Trusted");
            if ("yes".equals(trusted)) request.setAttribute("example.trusted", Boolean.TRUE);
            if ("text".equals(trusted)) request.setAttribute("example.trusted", "true");
            String user = http.getHeader("X-Demo-User");
            if (user == null) {
                chain.doFilter(request, response);
                return;
            }
            String roles = http.getHeader("X-Demo-Roles");
            Set<String> granted = roles == null ? Set.of() : Set.of(roles.split(","));
            chain.doFilter(new HttpServletRequestWrapper(http) {
                @Override
                public Principal getUserPrincipal() {
                    return () -> user;
                }

                @Override
                public String getRemoteUser() {
                    return user;
                }

                @Override
                public boolean isUserInRole(String role) {
                    return granted.contains(role);
                }
            }, response);
        }
    }

    @BeforeAll
    void start() {
        Map<String, String> params = new HashMap<>();
        params.put("config", "classpath:sluice-audience.properties");
        params.put("sluice.redis.address", TestRedis.address());
        params.put("sluice.key-prefix", "a" + UUID.randomUUID().toString().substring(0, 8));
        params.put("sluice.trusted-proxies", PROXY);
        server = kind.start(params, Containers.Setup.before(new Containers.AppFilter("auth", new DemoAuthentication())));
    }

    @AfterAll
    void stop() {
        if (server != null) server.close();
    }

    /** A response's status and headers (names in any case). */
    private record Reply(int status, Map<String, String> headers) {
        String header(String name) {
            return headers.get(name);
        }
    }

    /** One GET over a connection of its own from {@code from}, with the headers given as name, value pairs. */
    private Reply get(String from, String path, String... headers) {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(from, 0));
            socket.connect(new InetSocketAddress(CLIENT, server.port()), 10_000);
            socket.setSoTimeout(30_000);
            StringBuilder request = new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n");
            for (int i = 0; i < headers.length; i += 2) request.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(request.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = socket.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            String head = response.substring(0, response.indexOf("\r\n\r\n"));
            String[] lines = head.split("\r\n");
            Map<String, String> parsed = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                parsed.put(lines[i].substring(0, colon).trim(), lines[i].substring(colon + 1).trim());
            }
            return new Reply(Integer.parseInt(lines[0].split(" ")[1]), parsed);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Admitted and counted by {@code rule}: its limit, what remains, its policy. */
    private static void counted(Reply r, String rule, int limit, int remaining, String as) {
        assertThat(r.status()).as(as).isEqualTo(200);
        assertThat(r.header("X-RateLimit-Limit")).as(as).isEqualTo(Integer.toString(limit));
        assertThat(r.header("X-RateLimit-Remaining")).as(as).isEqualTo(Integer.toString(remaining));
        assertThat(r.header("RateLimit-Policy")).as(as).isEqualTo("\"" + rule + "\";q=" + limit + ";w=" + HOUR);
        assertThat(r.header("RateLimit")).as(as).startsWith("\"" + rule + "\";r=" + remaining + ";t=");
    }

    private static void rejected(Reply r, String rule, int limit, String as) {
        assertThat(r.status()).as(as).isEqualTo(429);
        assertThat(r.header("X-RateLimit-Limit")).as(as).isEqualTo(Integer.toString(limit));
        assertThat(r.header("X-RateLimit-Remaining")).as(as).isEqualTo("0");
        assertThat(r.header("RateLimit-Policy")).as(as).isEqualTo("\"" + rule + "\";q=" + limit + ";w=" + HOUR);
        assertThat(Long.parseLong(r.header("Retry-After"))).as(as).isPositive();
    }

    /** Admitted with no header of any rule: exempt (or no rule applied). */
    private static void unlimited(Reply r, String as) {
        assertThat(r.status()).as(as).isEqualTo(200);
        assertThat(r.headers().keySet()).as(as).noneSatisfy(h -> assertThat(h.toLowerCase()).contains("ratelimit"));
        assertThat(r.header("Retry-After")).as(as).isNull();
    }

    @Test
    void aCidrExemptsThroughTheTrustedProxyOnly() {
        for (int i = 0; i < 10; i++) unlimited(get(PROXY, "/audience/cidr", "X-Forwarded-For", "10.1.2.3"), "internal via the proxy " + i);
        unlimited(get(PROXY, "/audience/cidr", "X-Forwarded-For", "::1"), "::1 via the proxy");
        // The same header from a peer that is not the trusted proxy: the peer's own address counts.
        for (int i = 1; i <= 3; i++) counted(get(CLIENT, "/audience/cidr", "X-Forwarded-For", "10.1.2.3"), "cidr", 3, 3 - i, "spoofed " + i);
        rejected(get(CLIENT, "/audience/cidr", "X-Forwarded-For", "10.1.2.3"), "cidr", 3, "spoofed 4");
        // Through the proxy from outside the block: limited; an address the client put before it changes nothing.
        for (int i = 1; i <= 3; i++) counted(get(PROXY, "/audience/cidr", "X-Forwarded-For", "203.0.113.9"), "cidr", 3, 3 - i, "outside " + i);
        rejected(get(PROXY, "/audience/cidr", "X-Forwarded-For", "10.1.2.3, 203.0.113.9"), "cidr", 3, "prepended");
        // The internal client was never counted.
        unlimited(get(PROXY, "/audience/cidr", "X-Forwarded-For", "10.1.2.3"), "internal again");
    }

    @Test
    void aRoleAndAnAttributeTheApplicationSetsExemptAndAHeaderNever() {
        for (int i = 0; i < 5; i++) unlimited(get(CLIENT, "/audience/staff", "X-Demo-User", "root", "X-Demo-Roles", "ops,admin"), "admin " + i);
        for (int i = 1; i <= 2; i++) counted(get(CLIENT, "/audience/staff", "X-Demo-User", "alice", "X-Demo-Roles", "user"), "staff", 2, 2 - i, "alice " + i);
        rejected(get(CLIENT, "/audience/staff", "X-Demo-User", "alice", "X-Demo-Roles", "user"), "staff", 2, "alice 3");
        for (int i = 0; i < 3; i++) unlimited(get(CLIENT, "/audience/staff", "X-Demo-Trusted", "yes"), "trusted " + i);
        for (int i = 0; i < 3; i++) unlimited(get(CLIENT, "/audience/staff", "X-Demo-Trusted", "text"), "trusted as text " + i);
        unlimited(get(CLIENT, "/audience/staff", "X-Demo-User", "alice", "X-Demo-Trusted", "yes"), "alice, trusted");
        for (int i = 1; i <= 2; i++) counted(get(CLIENT, "/audience/staff"), "staff", 2, 2 - i, "anonymous " + i);
        // A header named as the attribute, or claiming the role, is the client's own word: limited.
        rejected(get(CLIENT, "/audience/staff", "example.trusted", "true", "X-Role", "admin"), "staff", 2, "forged");
        rejected(get(CLIENT, "/audience/staff", "X-Demo-Trusted", "no"), "staff", 2, "not trusted");
    }

    @Test
    void theUserElseTheAddressEachItsOwnCounter() {
        for (int i = 1; i <= 2; i++) counted(get(CLIENT, "/audience/either", "X-Demo-User", "127.0.0.1"), "either", 2, 2 - i, "user 127.0.0.1 " + i);
        rejected(get(CLIENT, "/audience/either", "X-Demo-User", "127.0.0.1"), "either", 2, "user 127.0.0.1 3");
        // The address 127.0.0.1 is another counter than the user named 127.0.0.1.
        for (int i = 1; i <= 2; i++) counted(get(CLIENT, "/audience/either"), "either", 2, 2 - i, "address " + i);
        rejected(get(CLIENT, "/audience/either"), "either", 2, "address 3");
        // Logged in from that spent address: the user's own counter.
        counted(get(CLIENT, "/audience/either", "X-Demo-User", "carol"), "either", 2, 1, "carol");
        counted(get(PROXY, "/audience/either", "X-Forwarded-For", "198.51.100.7"), "either", 2, 1, "another address");
    }

    @Test
    void githubsTwoRulesAnonymousByAddressMembersByUser() {
        for (int i = 1; i <= 3; i++) counted(get(PROXY, "/audience/api", "X-Forwarded-For", "198.51.100.20"), "anonymous", 3, 3 - i, "anonymous " + i);
        Reply fourth = get(PROXY, "/audience/api", "X-Forwarded-For", "198.51.100.20");
        rejected(fourth, "anonymous", 3, "anonymous 4");
        // The same address logged in: only the members' rule, per user.
        for (int i = 1; i <= 5; i++) {
            counted(get(PROXY, "/audience/api", "X-Forwarded-For", "198.51.100.20", "X-Demo-User", "dave"), "members", 5, 5 - i, "dave " + i);
        }
        rejected(get(PROXY, "/audience/api", "X-Forwarded-For", "198.51.100.20", "X-Demo-User", "dave"), "members", 5, "dave 6");
        counted(get(PROXY, "/audience/api", "X-Forwarded-For", "198.51.100.20", "X-Demo-User", "erin"), "members", 5, 4, "erin");
        rejected(get(PROXY, "/audience/api", "X-Forwarded-For", "198.51.100.20"), "anonymous", 3, "anonymous 5");
        counted(get(PROXY, "/audience/api", "X-Forwarded-For", "198.51.100.21"), "anonymous", 3, 2, "another address");
    }
}
