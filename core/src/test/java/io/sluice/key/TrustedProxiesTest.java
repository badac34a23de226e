package io.sluice.key;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class TrustedProxiesTest {

    @Test
    void parsesBlocksAndAddresses() {
        TrustedProxies t = TrustedProxies.parse("10.0.0.0/8, ::1, 192.168.1.5").orElseThrow();
        assertThat(t.isEmpty()).isFalse();
        assertThat(t.toString()).isEqualTo("10.0.0.0/8, ::1, 192.168.1.5");
        assertThat(t.trusts("10.0.0.0")).isTrue();
        assertThat(t.trusts("10.255.255.255")).isTrue();
        assertThat(t.trusts("11.0.0.0")).isFalse();
        assertThat(t.trusts("9.255.255.255")).isFalse();
        assertThat(t.trusts("::1")).isTrue();
        assertThat(t.trusts("[::1]")).isTrue();
        assertThat(t.trusts("::2")).isFalse();
        assertThat(t.trusts("192.168.1.5")).isTrue();
        assertThat(t.trusts("192.168.1.6")).isFalse();
        assertThat(t.trusts("::ffff:10.1.1.1")).isTrue();
        assertThat(t.trusts("localhost")).isFalse();
        assertThat(t.trusts("evil.com")).isFalse();
    }

    @Test
    void prefixesThatAreNotWholeBytes() {
        TrustedProxies t = TrustedProxies.parse("172.16.0.0/12").orElseThrow();
        assertThat(t.trusts("172.16.0.1")).isTrue();
        assertThat(t.trusts("172.31.255.255")).isTrue();
        assertThat(t.trusts("172.32.0.0")).isFalse();
        assertThat(t.trusts("172.15.255.255")).isFalse();
        TrustedProxies v6 = TrustedProxies.parse("2001:db8::/33").orElseThrow();
        assertThat(v6.trusts("2001:db8:7fff::1")).isTrue();
        assertThat(v6.trusts("2001:db8:8000::1")).isFalse();
        assertThat(v6.trusts("1.2.3.4")).isFalse();
    }

    @Test
    void zeroBitsTrustsTheWholeFamily() {
        TrustedProxies t = TrustedProxies.parse("0.0.0.0/0").orElseThrow();
        assertThat(t.trusts("1.2.3.4")).isTrue();
        assertThat(t.trusts("::2")).isFalse();
    }

    @Test
    void ipv4MappedBlockIsShifted() {
        TrustedProxies t = TrustedProxies.parse("::ffff:10.0.0.0/104").orElseThrow();
        assertThat(t.trusts("10.9.9.9")).isTrue();
        assertThat(t.trusts("11.0.0.1")).isFalse();
    }

    @Test
    void blankIsNone() {
        assertThat(TrustedProxies.parse("  ")).containsSame(TrustedProxies.NONE);
        assertThat(TrustedProxies.NONE.isEmpty()).isTrue();
        assertThat(TrustedProxies.NONE.trusts("127.0.0.1")).isFalse();
        assertThat(TrustedProxies.NONE.toString()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.0.0.0/33", "foo", "10.0.0/8", "::1/129", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8",
            "10.0.0.0/a", "10.0.0.0/8, foo", ", 10.0.0.0/8", "::ffff:10.0.0.0/64", "localhost"})
    void rejects(String text) {
        assertThat(TrustedProxies.parse(text)).isEmpty();
    }
}
