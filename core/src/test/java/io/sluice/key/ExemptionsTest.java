package io.sluice.key;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExemptionsTest {
    private static final KeyResolver NO_PROXIES = new KeyResolver(TrustedProxies.NONE);
    private static final KeyResolver PROXY = new KeyResolver(TrustedProxies.parse("192.0.2.10").orElseThrow());

    /** A request with roles and attributes besides what {@link FakeRequest} has. */
    private record Caller(FakeRequest request, Set<String> roles, Map<String, Object> attributes) implements RequestView {
        Caller(FakeRequest request) {
            this(request, Set.of(), Map.of());
        }

        @Override
        public String remoteAddress() {
            return request.remoteAddress();
        }

        @Override
        public List<String> headers(String name) {
            return request.headers(name);
        }

        @Override
        public String queryString() {
            return request.queryString();
        }

        @Override
        public String cookie(String name) {
            return request.cookie(name);
        }

        @Override
        public String userName() {
            return request.userName();
        }

        @Override
        public String sessionId() {
            return request.sessionId();
        }

        @Override
        public boolean isUserInRole(String role) {
            return roles.contains(role);
        }

        @Override
        public String attribute(String name) {
            Object v = attributes.get(name);
            return v == null ? null : v.toString();
        }
    }

    private static final Exemptions EVERY_KIND = Exemptions.parse(
            "ip:10.0.0.0/8, ip:::1, ip:2001:db8::/32, user:monitor, role:admin, attribute:io.example.trusted");

    @Test
    void anAddressInABlock() {
        assertThat(EVERY_KIND.exempts(new Caller(FakeRequest.from("10.9.8.7")), NO_PROXIES)).isTrue();
        assertThat(EVERY_KIND.exempts(new Caller(FakeRequest.from("::1")), NO_PROXIES)).isTrue();
        assertThat(EVERY_KIND.exempts(new Caller(FakeRequest.from("2001:db8:1::9")), NO_PROXIES)).isTrue();
        assertThat(EVERY_KIND.exempts(new Caller(FakeRequest.from("::ffff:10.0.0.1")), NO_PROXIES)).isTrue();
        assertThat(EVERY_KIND.exempts(new Caller(FakeRequest.from("203.0.113.7")), NO_PROXIES)).isFalse();
        assertThat(EVERY_KIND.exempts(new Caller(FakeRequest.from("unknown")), NO_PROXIES)).isFalse();
    }

    @Test
    void theClientAddressOfTheIpKeyAForwardedOneOnlyFromATrustedProxy() {
        FakeRequest viaProxy = FakeRequest.from("192.0.2.10").header("X-Forwarded-For", "10.1.1.1");
        assertThat(EVERY_KIND.exempts(new Caller(viaProxy), PROXY)).isTrue();
        FakeRequest spoofed = FakeRequest.from("203.0.113.7").header("X-Forwarded-For", "10.1.1.1");
        assertThat(EVERY_KIND.exempts(new Caller(spoofed), PROXY)).isFalse();
        // The proxy itself in a block, a client outside: the client is what counts.
        Exemptions proxyBlock = Exemptions.parse("ip:192.0.2.0/24");
        FakeRequest outside = FakeRequest.from("192.0.2.10").header("X-Forwarded-For", "203.0.113.7");
        assertThat(proxyBlock.exempts(new Caller(outside), PROXY)).isFalse();
        assertThat(proxyBlock.exempts(new Caller(outside), NO_PROXIES)).isTrue();
    }

    @Test
    void aUserARoleOfTheUserAndAnAttributeSetToTrue() {
        FakeRequest out = FakeRequest.from("203.0.113.7");
        assertThat(EVERY_KIND.exempts(new Caller(out.user("monitor")), NO_PROXIES)).isTrue();
        assertThat(EVERY_KIND.exempts(new Caller(out.user("Monitor")), NO_PROXIES)).isFalse();
        assertThat(EVERY_KIND.exempts(new Caller(out.user("alice"), Set.of("admin"), Map.of()), NO_PROXIES)).isTrue();
        assertThat(EVERY_KIND.exempts(new Caller(out.user("alice"), Set.of("user"), Map.of()), NO_PROXIES)).isFalse();
        assertThat(EVERY_KIND.exempts(new Caller(out, Set.of(), Map.of("io.example.trusted", Boolean.TRUE)), NO_PROXIES)).isTrue();
        assertThat(EVERY_KIND.exempts(new Caller(out, Set.of(), Map.of("io.example.trusted", "true")), NO_PROXIES)).isTrue();
        assertThat(EVERY_KIND.exempts(new Caller(out, Set.of(), Map.of("io.example.trusted", Boolean.FALSE)), NO_PROXIES)).isFalse();
        assertThat(EVERY_KIND.exempts(new Caller(out, Set.of(), Map.of("io.example.trusted", "yes")), NO_PROXIES)).isFalse();
        // A header of the attribute's name is the client's, not the application's.
        assertThat(EVERY_KIND.exempts(new Caller(out.header("io.example.trusted", "true")), NO_PROXIES)).isFalse();
        assertThat(EVERY_KIND.exempts(new Caller(out.user("alice")), NO_PROXIES)).isFalse();
    }

    @Test
    void refusesEveryBadEntryNamingIt() {
        String[][] cases = {
                {"header:X-Internal", "'header:X-Internal' is a request header, which never exempts: a client can send any header"},
                {"ip:10.0.0.0/8, HEADER:X-Trusted", "'HEADER:X-Trusted' is a request header"},
                {"ip:10.0.0.0/33", "'ip:10.0.0.0/33' is not an IP address or CIDR block"},
                {"ip:::1/129", "'ip:::1/129' is not"},
                {"ip:example.com", "'ip:example.com' is not"},
                {"ip:", "'ip:' is not"},
                {"user:", "'user:' needs a user name"},
                {"role: ", "'role:' needs a role name"},
                {"attribute:a b", "'attribute:a b' needs an attribute name"},
                {"attribute:", "'attribute:' needs an attribute name"},
                {"group:admins", "'group:admins' is of no known kind"},
                {"10.0.0.0/8", "'10.0.0.0/8' is of no known kind"},
                {"ip:10.0.0.0/8,", "an empty entry"},
                {"", "an empty entry"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> Exemptions.parse(c[0])).as(c[0]).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(c[1]);
        }
    }

    @Test
    void kindsAreCaseInsensitiveAndNamesAreNot() {
        Exemptions e = Exemptions.parse(" IP:10.0.0.1 , User:Ops ");
        assertThat(e.exempts(new Caller(FakeRequest.from("10.0.0.1")), NO_PROXIES)).isTrue();
        assertThat(e.exempts(new Caller(FakeRequest.from("1.1.1.1").user("Ops")), NO_PROXIES)).isTrue();
        assertThat(e.exempts(new Caller(FakeRequest.from("1.1.1.1").user("ops")), NO_PROXIES)).isFalse();
        assertThat(e.toString()).isEqualTo("IP:10.0.0.1 , User:Ops");
        assertThat(Exemptions.NONE.none()).isTrue();
        assertThat(e.none()).isFalse();
    }
}
