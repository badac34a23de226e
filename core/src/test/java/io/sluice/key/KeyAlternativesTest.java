package io.sluice.key;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class KeyAlternativesTest {
    private static final KeyResolver NO_PROXIES = new KeyResolver(TrustedProxies.NONE);
    private static final KeyResolver PROXY = new KeyResolver(TrustedProxies.parse("192.0.2.10").orElseThrow());

    private static KeySpec spec(String text) {
        return KeySpec.parse(text).orElseThrow(() -> new AssertionError("not a key: " + text));
    }

    @Test
    void theFirstAlternativeThatResolvesNamedByItsKind() {
        KeySpec userOrIp = spec("user|ip");
        assertThat(NO_PROXIES.resolve(userOrIp, FakeRequest.from("10.0.0.1").user("alice"))).isEqualTo("user=alice");
        assertThat(NO_PROXIES.resolve(userOrIp, FakeRequest.from("10.0.0.1"))).isEqualTo("ip=10.0.0.1");
        assertThat(NO_PROXIES.resolve(userOrIp, FakeRequest.from("2001:db8:a:b::1"))).isEqualTo("ip=2001:db8:a:b::/64");
        assertThat(NO_PROXIES.resolve(userOrIp, FakeRequest.from("unknown"))).isNull();
        FakeRequest proxied = FakeRequest.from("192.0.2.10").header("X-Forwarded-For", "198.51.100.4");
        assertThat(PROXY.resolve(userOrIp, proxied)).isEqualTo("ip=198.51.100.4");
    }

    @Test
    void aUserNamedAsAnAddressNeverSharesTheAddresssCounter() {
        KeySpec userOrIp = spec("user|ip");
        String user = NO_PROXIES.resolve(userOrIp, FakeRequest.from("192.0.2.1").user("10.0.0.1"));
        String address = NO_PROXIES.resolve(userOrIp, FakeRequest.from("10.0.0.1"));
        assertThat(user).isNotEqualTo(address);
        assertThat(KeyResolver.hash(user)).isNotEqualTo(KeyResolver.hash(address));
        // A user whose name spells another kind's value is still the user.
        String tricky = NO_PROXIES.resolve(userOrIp, FakeRequest.from("192.0.2.1").user("x=ip=10.0.0.1"));
        assertThat(tricky).isEqualTo("user=x=ip=10.0.0.1").isNotEqualTo(address);
    }

    @Test
    void plusBindsTighterThanBar() {
        KeySpec spec = spec("user+ip|ip");
        assertThat(spec.alternatives()).hasSize(2);
        assertThat(spec.alternatives().get(0).parts()).containsExactly(new KeySpec.Part(KeySpec.Kind.USER, null),
                new KeySpec.Part(KeySpec.Kind.IP, null));
        assertThat(NO_PROXIES.resolve(spec, FakeRequest.from("10.0.0.1").user("bob"))).isEqualTo("user+ip=3:bob;8:10.0.0.1;");
        assertThat(NO_PROXIES.resolve(spec, FakeRequest.from("10.0.0.1"))).isEqualTo("ip=10.0.0.1");
        assertThat(spec.toString()).isEqualTo("user+ip|ip");
        assertThat(spec(" User | header:X-Key | IP ").toString()).isEqualTo("user|header:X-Key|ip");
    }

    @Test
    void aKeyWithoutAlternativesKeepsItsValueAndSoItsCounters() {
        FakeRequest r = FakeRequest.from("10.0.0.1").user("alice").header("X-Key", "k");
        assertThat(NO_PROXIES.resolve(spec("user"), r)).isEqualTo("alice");
        assertThat(NO_PROXIES.resolve(spec("ip"), r)).isEqualTo("10.0.0.1");
        assertThat(NO_PROXIES.resolve(spec("user+header:X-Key"), r)).isEqualTo("5:alice;1:k;");
        assertThat(spec("user").alternates()).isFalse();
        assertThat(spec("user|ip").alternates()).isTrue();
    }

    @Test
    void aLongValueJoinsAsItsDigestNeverAsACopy() {
        String huge = "k".repeat(KeyResolver.LONG_PART_CHARS + 1);
        String v = NO_PROXIES.resolve(spec("header:X-Key|ip"), FakeRequest.from("10.0.0.1").header("X-Key", huge));
        assertThat(v).startsWith("header:X-Key#").doesNotContain("=").hasSizeLessThan(100);
        String other = NO_PROXIES.resolve(spec("header:X-Key|ip"), FakeRequest.from("10.0.0.1").header("X-Key", huge + "k"));
        assertThat(other).isNotEqualTo(v);
    }

    @Test
    void globalAndTheUsersThatNeedAUser() {
        assertThat(spec("user|global").global()).isFalse();
        assertThat(NO_PROXIES.resolve(spec("user|global"), FakeRequest.from("10.0.0.1"))).isEqualTo("global=*");
        assertThat(spec("global").global()).isTrue();
        assertThat(spec("user").resolvesWithoutUser()).isFalse();
        assertThat(spec("user+ip").resolvesWithoutUser()).isFalse();
        assertThat(spec("user|ip").resolvesWithoutUser()).isTrue();
        assertThat(spec("ip").resolvesWithoutUser()).isTrue();
    }

    @Test
    void refuses() {
        for (String bad : new String[] {"user|", "|ip", "user||ip", "user|user", "ip|IP", "global|ip", "user|global|ip",
                "user|foo", "user|header:", "user+ip|ip+user", "ip|user+ip", "|"}) {
            assertThat(KeySpec.parse(bad)).as(bad).isEmpty();
        }
    }
}
