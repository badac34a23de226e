package io.sluice.key;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class IpBlockTest {
    private static IpBlock block(String text) {
        return IpBlock.parse(text).orElseThrow(() -> new AssertionError("not a block: " + text));
    }

    @Test
    void ipv4Blocks() {
        IpBlock ten = block("10.0.0.0/8");
        assertThat(ten.contains("10.0.0.0")).isTrue();
        assertThat(ten.contains("10.255.255.255")).isTrue();
        assertThat(ten.contains("11.0.0.0")).isFalse();
        assertThat(ten.contains("9.255.255.255")).isFalse();
        IpBlock odd = block("192.168.1.128/25");
        assertThat(odd.contains("192.168.1.128")).isTrue();
        assertThat(odd.contains("192.168.1.255")).isTrue();
        assertThat(odd.contains("192.168.1.127")).isFalse();
    }

    @Test
    void slash32AndABareAddressAreOneAddress() {
        for (IpBlock one : new IpBlock[] {block("203.0.113.7/32"), block("203.0.113.7")}) {
            assertThat(one.contains("203.0.113.7")).isTrue();
            assertThat(one.contains("203.0.113.6")).isFalse();
            assertThat(one.contains("203.0.113.8")).isFalse();
        }
    }

    @Test
    void slash0IsEveryAddressOfItsFamily() {
        assertThat(block("0.0.0.0/0").contains("255.255.255.255")).isTrue();
        assertThat(block("0.0.0.0/0").contains("1.2.3.4")).isTrue();
        assertThat(block("0.0.0.0/0").contains("2001:db8::1")).isFalse();
        assertThat(block("::/0").contains("2001:db8::1")).isTrue();
        assertThat(block("::/0").contains("1.2.3.4")).isFalse();
    }

    @Test
    void ipv6BlocksAndSlash128() {
        IpBlock doc = block("2001:db8::/32");
        assertThat(doc.contains("2001:db8::1")).isTrue();
        assertThat(doc.contains("2001:db8:ffff:ffff:ffff:ffff:ffff:ffff")).isTrue();
        assertThat(doc.contains("2001:db9::")).isFalse();
        assertThat(doc.contains("[2001:db8::5]")).isTrue();
        IpBlock loopback = block("::1");
        assertThat(loopback.contains("::1")).isTrue();
        assertThat(loopback.contains("0:0:0:0:0:0:0:1")).isTrue();
        assertThat(loopback.contains("::2")).isFalse();
        assertThat(loopback.contains("127.0.0.1")).isFalse();
        IpBlock one = block("2001:db8::7/128");
        assertThat(one.contains("2001:db8::7")).isTrue();
        assertThat(one.contains("2001:db8::6")).isFalse();
        assertThat(block("fe80::/10").contains("febf::1")).isTrue();
        assertThat(block("fe80::/10").contains("fec0::1")).isFalse();
    }

    @Test
    void ipv4MappedAddressesAreTheirIpv4Address() {
        assertThat(block("10.0.0.0/8").contains("::ffff:10.1.2.3")).isTrue();
        assertThat(block("::ffff:10.0.0.0/104").contains("10.1.2.3")).isTrue();
        assertThat(block("::ffff:10.0.0.0/104").contains("11.1.2.3")).isFalse();
        assertThat(block("::ffff:1.2.3.4").contains("1.2.3.4")).isTrue();
        assertThat(block("::ffff:0.0.0.0/96").contains("255.1.2.3")).isTrue();
    }

    @Test
    void bitsPastThePrefixAreIgnored() {
        assertThat(block("10.1.2.3/8").contains("10.200.0.1")).isTrue();
    }

    @Test
    void whatIsNotAnAddressIsInNoBlock() {
        IpBlock all = block("0.0.0.0/0");
        for (String s : new String[] {"unknown", "", "localhost", "1.2.3", "1.2.3.4.5", null}) {
            assertThat(all.contains(s)).as(String.valueOf(s)).isFalse();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "10.0.0.0/33", "10.0.0.0/-1", "::/129", "10.0.0.0/", "10.0.0.0/8/8", "10.0.0.0/a",
            "10.0.0.256", "example.com", "10.0.0.0 /8x", "::ffff:10.0.0.0/95", "2001:db8::/1000", "1.2.3.4/08a"})
    void refuses(String bad) {
        assertThat(IpBlock.parse(bad)).as(bad).isEmpty();
    }
}
