package io.sluice.key;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

class ClientAddressTest {
    private static final TrustedProxies TEN = proxies("10.0.0.0/8");

    private static TrustedProxies proxies(String text) {
        return TrustedProxies.parse(text).orElseThrow(() -> new AssertionError("not a list: " + text));
    }

    private static final ClientAddressHeader FORWARDED = header("Forwarded");
    private static final ClientAddressHeader X_REAL_IP = header("X-Real-IP");

    private static ClientAddressHeader header(String name) {
        return ClientAddressHeader.parse(name).orElseThrow(() -> new AssertionError("not a header name: " + name));
    }

    private static String resolve(FakeRequest r, TrustedProxies trusted) {
        return ClientAddress.resolve(r, trusted, ClientAddressHeader.X_FORWARDED_FOR);
    }

    private static String resolve(FakeRequest r, TrustedProxies trusted, ClientAddressHeader header) {
        return ClientAddress.resolve(r, trusted, header);
    }

    @Test
    void withoutTrustedProxiesThePeerIsTheClient() {
        FakeRequest r = FakeRequest.from("203.0.113.9").header("X-Forwarded-For", "1.2.3.4")
                .header("Forwarded", "for=5.6.7.8");
        assertThat(resolve(r, TrustedProxies.NONE)).isEqualTo("203.0.113.9");
    }

    @Test
    void spoofedForwardingFromAnUntrustedPeerIsIgnored() {
        FakeRequest r = FakeRequest.from("203.0.113.9").header("X-Forwarded-For", "1.2.3.4, 10.0.0.7")
                .header("Forwarded", "for=5.6.7.8");
        assertThat(resolve(r, TEN)).isEqualTo("203.0.113.9");
    }

    @Test
    void trustedPeerWithoutHeadersIsTheClient() {
        assertThat(resolve(FakeRequest.from("10.1.2.3"), TEN)).isEqualTo("10.1.2.3");
    }

    @Test
    void rightMostUntrustedHopIsTheClient() {
        FakeRequest r = FakeRequest.from("10.0.0.1").header("X-Forwarded-For", "1.2.3.4, 10.0.0.7");
        assertThat(resolve(r, TEN)).isEqualTo("1.2.3.4");
    }

    @Test
    void hopsLeftOfTheFirstUntrustedOneAreNotBelieved() {
        FakeRequest r = FakeRequest.from("10.0.0.1").header("X-Forwarded-For", "6.6.6.6, 1.2.3.4, 10.0.0.7");
        assertThat(resolve(r, TEN)).isEqualTo("1.2.3.4");
    }

    @Test
    void allTrustedChainResolvesToTheLeftMost() {
        FakeRequest r = FakeRequest.from("10.0.0.1").header("X-Forwarded-For", "10.0.0.3, 10.0.0.2");
        assertThat(resolve(r, TEN)).isEqualTo("10.0.0.3");
    }

    @Test
    void severalHeadersAreOneChain() {
        FakeRequest a = FakeRequest.from("10.0.0.1").header("X-Forwarded-For", "7.7.7.7, 10.0.0.5", "10.0.0.6");
        assertThat(resolve(a, TEN)).isEqualTo("7.7.7.7");
        FakeRequest b = FakeRequest.from("10.0.0.1").header("X-Forwarded-For", "10.0.0.9", "6.6.6.6");
        assertThat(resolve(b, TEN)).isEqualTo("6.6.6.6");
    }

    @Test
    void portsAreStripped() {
        FakeRequest r = FakeRequest.from("10.0.0.1").header("X-Forwarded-For", "1.2.3.4:5678");
        assertThat(resolve(r, TEN)).isEqualTo("1.2.3.4");
        FakeRequest v6 = FakeRequest.from("10.0.0.1").header("X-Forwarded-For", "[2001:db8::1]:443");
        assertThat(resolve(v6, TEN)).isEqualTo("2001:db8:0:0::/64");
        FakeRequest bare = FakeRequest.from("10.0.0.1").header("X-Forwarded-For", "2001:db8:5::1");
        assertThat(resolve(bare, TEN)).isEqualTo("2001:db8:5:0::/64");
    }

    @Test
    void byDefaultOnlyXForwardedForIsReadAndAClientsOwnForwardedHeaderIsIgnored() {
        // nginx and cloud load balancers append to X-Forwarded-For and pass the client's Forwarded through.
        FakeRequest spoof = FakeRequest.from("10.0.0.1").header("X-Forwarded-For", "9.9.9.9")
                .header("Forwarded", "for=1.1.1.1").header("X-Real-IP", "2.2.2.2");
        assertThat(resolve(spoof, TEN)).isEqualTo("9.9.9.9");
        FakeRequest empty = FakeRequest.from("10.0.0.1").header("X-Forwarded-For", "9.9.9.9").header("Forwarded", "");
        assertThat(resolve(empty, TEN)).isEqualTo("9.9.9.9");
        // Every spoofed Forwarded value lands on the same key: no fresh limit per request.
        for (int i = 0; i < 20; i++) {
            FakeRequest r = FakeRequest.from("10.0.0.1").header("X-Forwarded-For", "9.9.9.9")
                    .header("Forwarded", "for=203.0.113." + i);
            assertThat(resolve(r, TEN)).isEqualTo("9.9.9.9");
        }
    }

    @Test
    void withForwardedConfiguredOnlyForwardedIsRead() {
        FakeRequest r = FakeRequest.from("10.0.0.1")
                .header("X-Forwarded-For", "9.9.9.9")
                .header("Forwarded", "for=192.0.2.60;proto=http, for=\"[2001:db8:cafe::17]:4711\"");
        assertThat(resolve(r, TEN, FORWARDED)).isEqualTo("2001:db8:cafe:0::/64");
        TrustedProxies withV6 = proxies("10.0.0.0/8, 2001:db8:cafe::/48");
        assertThat(resolve(r, withV6, FORWARDED)).isEqualTo("192.0.2.60");
        // Without a Forwarded header the proxy itself is the best we know; X-Forwarded-For is never a fallback.
        FakeRequest xffOnly = FakeRequest.from("10.0.0.1").header("X-Forwarded-For", "9.9.9.9");
        assertThat(resolve(xffOnly, TEN, FORWARDED)).isEqualTo("10.0.0.1");
    }

    @Test
    void aSingleAddressHeaderIsReadAlone() {
        FakeRequest r = FakeRequest.from("10.0.0.1").header("X-Real-IP", "198.51.100.7")
                .header("X-Forwarded-For", "9.9.9.9").header("Forwarded", "for=1.1.1.1");
        assertThat(resolve(r, TEN, X_REAL_IP)).isEqualTo("198.51.100.7");
        assertThat(resolve(FakeRequest.from("10.0.0.1").header("X-Forwarded-For", "9.9.9.9"), TEN, X_REAL_IP))
                .isEqualTo("10.0.0.1");
        // From an untrusted peer it is ignored like any forwarding header.
        assertThat(resolve(FakeRequest.from("203.0.113.9").header("X-Real-IP", "198.51.100.7"), TEN, X_REAL_IP))
                .isEqualTo("203.0.113.9");
    }

    @Test
    void headerNamesParseCaseInsensitivelyAndBadNamesAreRefused() {
        assertThat(ClientAddressHeader.parse("x-forwarded-for")).containsSame(ClientAddressHeader.X_FORWARDED_FOR);
        FakeRequest r = FakeRequest.from("10.0.0.1").header("Forwarded", "For=192.0.2.43");
        assertThat(resolve(r, TEN, header("FORWARDED"))).isEqualTo("192.0.2.43");
        for (String bad : new String[]{"", " ", "X Forwarded", "X-Real-IP:", "a\r\nb", "x".repeat(65)}) {
            assertThat(ClientAddressHeader.parse(bad)).as(bad).isEmpty();
        }
    }

    @Test
    void forwardedParametersInAnyOrderAndCase() {
        FakeRequest r = FakeRequest.from("10.0.0.1")
                .header("Forwarded", "proto=https;For=\"192.0.2.43:47011\";by=10.0.0.1");
        assertThat(resolve(r, TEN, FORWARDED)).isEqualTo("192.0.2.43");
    }

    @Test
    void forwardedElementWithoutForStopsTheWalk() {
        FakeRequest r = FakeRequest.from("10.0.0.1").header("Forwarded", "for=1.2.3.4, proto=https")
                .header("X-Forwarded-For", "9.9.9.9");
        assertThat(resolve(r, TEN, FORWARDED)).isEqualTo("10.0.0.1");
    }

    @Test
    void garbageHopsStopTheWalkWithoutDns() {
        assertThat(resolve(FakeRequest.from("10.0.0.1").header("X-Forwarded-For", "1.2.3.4, unknown, 10.0.0.7"), TEN))
                .isEqualTo("10.0.0.7");
        assertThat(resolve(FakeRequest.from("10.0.0.1").header("X-Forwarded-For", "evil.com"), TEN))
                .isEqualTo("10.0.0.1");
        // A name that DNS would resolve (to 127.0.0.1) must not be looked up.
        assertThat(resolve(FakeRequest.from("10.0.0.1").header("X-Forwarded-For", "localhost"), TEN))
                .isEqualTo("10.0.0.1");
        assertThat(resolve(FakeRequest.from("10.0.0.1").header("Forwarded", "for=unknown"), TEN, FORWARDED))
                .isEqualTo("10.0.0.1");
        assertThat(resolve(FakeRequest.from("10.0.0.1").header("Forwarded", "for=\"_hidden\", for=10.0.0.4"), TEN, FORWARDED))
                .isEqualTo("10.0.0.4");
        assertThat(resolve(FakeRequest.from("10.0.0.1").header("X-Forwarded-For", "1.2.3.4, ,10.0.0.2"), TEN))
                .isEqualTo("10.0.0.2");
    }

    @Test
    void hostileHeadersNeverThrow() {
        String[] hostile = {"", ",,,,", "[", "[]", "[::1", "]:80", ":::::", "1.2.3.4.5", "999.1.1.1", "dead:beef",
                "fe80::1%eth0%x", "\u0000", "\r\n1.2.3.4", "x".repeat(10_000), "1.2.3.4, ".repeat(5_000),
                "for=\"", "for=;for=", "\uD800", "::ffff:999.1.1.1"};
        for (String h : hostile) {
            FakeRequest r = FakeRequest.from("10.0.0.1").header("X-Forwarded-For", h).header("Forwarded", h)
                    .header("X-Real-IP", h);
            for (ClientAddressHeader header : new ClientAddressHeader[]{ClientAddressHeader.X_FORWARDED_FOR, FORWARDED, X_REAL_IP}) {
                assertThatCode(() -> resolve(r, TEN, header)).as("%s: %s", header, h.length() > 40 ? h.substring(0, 40) : h)
                        .doesNotThrowAnyException();
            }
        }
    }

    @Test
    void longChainsStopAfter32Hops() {
        StringBuilder chain = new StringBuilder("1.2.3.4");
        for (int i = 0; i < 40; i++) chain.append(", 10.0.0.").append(i + 1);
        FakeRequest r = FakeRequest.from("10.0.0.200").header("X-Forwarded-For", chain.toString());
        // Right to left: 10.0.0.40 is hop 1, ..., 10.0.0.9 is hop 32; the walk ends there.
        assertThat(resolve(r, TEN)).isEqualTo("10.0.0.9");
    }

    @Test
    void ipv6IsGroupedBySlash64() {
        String a = resolve(FakeRequest.from("2001:db8:1:2:aaaa::1"), TrustedProxies.NONE);
        String b = resolve(FakeRequest.from("2001:db8:1:2:bbbb:cccc:dddd:eeee"), TrustedProxies.NONE);
        String c = resolve(FakeRequest.from("2001:db8:1:3::1"), TrustedProxies.NONE);
        assertThat(a).isEqualTo("2001:db8:1:2::/64");
        assertThat(b).isEqualTo(a);
        assertThat(c).isEqualTo("2001:db8:1:3::/64").isNotEqualTo(a);
        assertThat(resolve(FakeRequest.from("[::1]"), TrustedProxies.NONE)).isEqualTo("0:0:0:0::/64");
        assertThat(resolve(FakeRequest.from("fe80::1%eth0"), TrustedProxies.NONE)).isEqualTo("fe80:0:0:0::/64");
    }

    @Test
    void ipv4MappedIpv6IsIpv4() {
        assertThat(resolve(FakeRequest.from("::ffff:1.2.3.4"), TrustedProxies.NONE)).isEqualTo("1.2.3.4");
        assertThat(resolve(FakeRequest.from("::ffff:0102:0304"), TrustedProxies.NONE)).isEqualTo("1.2.3.4");
        FakeRequest r = FakeRequest.from("::ffff:10.0.0.1").header("X-Forwarded-For", "::ffff:5.6.7.8");
        assertThat(resolve(r, TEN)).isEqualTo("5.6.7.8");
    }

    @Test
    void peerThatIsNotAnAddressResolvesToNull() {
        assertThat(resolve(FakeRequest.from("evil.com"), TrustedProxies.NONE)).isNull();
        assertThat(resolve(FakeRequest.from(null), TEN)).isNull();
        assertThat(resolve(FakeRequest.from(""), TEN)).isNull();
        assertThat(resolve(FakeRequest.from("localhost"), TrustedProxies.NONE)).isNull();
    }

    @Test
    void ipAddressParsesWithoutDns() {
        assertThat(IpAddress.parse("1.2.3.4")).containsExactly(1, 2, 3, 4);
        assertThat(IpAddress.parse("255.255.255.255")).containsExactly(-1, -1, -1, -1);
        assertThat(IpAddress.parse("256.1.1.1")).isNull();
        assertThat(IpAddress.parse("1.2.3")).isNull();
        assertThat(IpAddress.parse("1.2.3.")).isNull();
        assertThat(IpAddress.parse("a.b.c.d")).isNull();
        assertThat(IpAddress.parse("localhost")).isNull();
        assertThat(IpAddress.parse("::1")).hasSize(16);
        assertThat(IpAddress.parse("g::1")).isNull();
        assertThat(IpAddress.parse(null)).isNull();
    }
}
