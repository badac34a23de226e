package io.sluice.key;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

class KeyResolverTest {
    private static final KeyResolver NO_PROXIES = new KeyResolver(TrustedProxies.NONE);
    private static final KeyResolver TEN = new KeyResolver(TrustedProxies.parse("10.0.0.0/8").orElseThrow());

    private static KeySpec spec(String text) {
        return KeySpec.parse(text).orElseThrow(() -> new AssertionError("not a key: " + text));
    }

    private static String resolve(String spec, FakeRequest r) {
        return NO_PROXIES.resolve(spec(spec), r);
    }

    private static final FakeRequest FULL = FakeRequest.from("203.0.113.7")
            .header("X-User", "alice").header("X-Api-Key", "k1", "k2")
            .cookie("sid", "c00kie").user("bob").session("S-123")
            .query("a=1&b=2&name=J%C3%BCrgen+X&empty=&flag&%6B=dec");

    // ---------------------------------------------------------------- kinds

    @Test
    void ipIsTheClientAddress() {
        assertThat(resolve("ip", FULL)).isEqualTo("203.0.113.7");
        FakeRequest spoofed = FakeRequest.from("203.0.113.7").header("X-Forwarded-For", "1.1.1.1");
        assertThat(TEN.resolve(KeySpec.IP, spoofed)).isEqualTo("203.0.113.7");
        FakeRequest proxied = FakeRequest.from("10.0.0.2").header("X-Forwarded-For", "1.2.3.4, 10.0.0.7");
        assertThat(TEN.resolve(KeySpec.IP, proxied)).isEqualTo("1.2.3.4");
        assertThat(NO_PROXIES.resolve(KeySpec.IP, proxied)).isEqualTo("10.0.0.2");
    }

    @Test
    void ipOfIpv6IsTheSlash64() {
        assertThat(resolve("ip", FakeRequest.from("2001:db8:a:b:1::1")))
                .isEqualTo(resolve("ip", FakeRequest.from("2001:db8:a:b:ffff::2")))
                .isEqualTo("2001:db8:a:b::/64");
        assertThat(resolve("ip", FakeRequest.from("2001:db8:a:c::1"))).isEqualTo("2001:db8:a:c::/64");
        assertThat(resolve("ip", FakeRequest.from("::ffff:1.2.3.4"))).isEqualTo("1.2.3.4");
    }

    @Test
    void ipOfAPeerThatIsNotAnAddressIsMissing() {
        assertThat(resolve("ip", FakeRequest.from("unknown"))).isNull();
    }

    @Test
    void userAndSession() {
        assertThat(resolve("user", FULL)).isEqualTo("bob");
        assertThat(resolve("session", FULL)).isEqualTo("S-123");
        assertThat(resolve("user", FakeRequest.from("1.2.3.4"))).isNull();
        assertThat(resolve("session", FakeRequest.from("1.2.3.4"))).isNull();
        assertThat(resolve("user", FakeRequest.from("1.2.3.4").user(""))).isNull();
    }

    @Test
    void headerIsTheFirstValueAndNamesAreCaseInsensitive() {
        assertThat(resolve("header:X-User", FULL)).isEqualTo("alice");
        assertThat(resolve("header:x-user", FULL)).isEqualTo("alice");
        assertThat(resolve("header:X-Api-Key", FULL)).isEqualTo("k1");
        assertThat(resolve("header:X-Missing", FULL)).isNull();
        assertThat(resolve("header:X-Empty", FakeRequest.from("1.2.3.4").header("X-Empty", ""))).isNull();
    }

    @Test
    void cookie() {
        assertThat(resolve("cookie:sid", FULL)).isEqualTo("c00kie");
        assertThat(resolve("cookie:other", FULL)).isNull();
    }

    @Test
    void paramReadsOnlyTheQueryStringDecoded() {
        assertThat(resolve("param:a", FULL)).isEqualTo("1");
        assertThat(resolve("param:b", FULL)).isEqualTo("2");
        assertThat(resolve("param:name", FULL)).isEqualTo("J\u00fcrgen X");
        assertThat(resolve("param:k", FULL)).isEqualTo("dec");
        assertThat(resolve("param:c", FULL)).isNull();
        assertThat(resolve("param:empty", FULL)).isNull();
        assertThat(resolve("param:flag", FULL)).isNull();
        assertThat(resolve("param:a", FakeRequest.from("1.2.3.4"))).isNull();
        assertThat(resolve("param:a", FakeRequest.from("1.2.3.4").query(""))).isNull();
    }

    @Test
    void queryStringDetails() {
        assertThat(QueryString.first("a=1&b=2", "a")).isEqualTo("1");
        assertThat(QueryString.first("a=1&b=2", "b")).isEqualTo("2");
        assertThat(QueryString.first("a=1&b=2", "c")).isNull();
        assertThat(QueryString.first("a=1&a=2", "a")).isEqualTo("1");
        assertThat(QueryString.first("ab=1&a=2", "a")).isEqualTo("2");
        assertThat(QueryString.first("x=a%3Db&a=3", "x")).isEqualTo("a=b");
        assertThat(QueryString.first("a=x=y", "a")).isEqualTo("x=y");
        assertThat(QueryString.first("a", "a")).isEmpty();
        assertThat(QueryString.first("a=", "a")).isEmpty();
        assertThat(QueryString.first("&&a=1&", "a")).isEqualTo("1");
        assertThat(QueryString.first("b&a=1", "a")).isEqualTo("1");
        assertThat(QueryString.first("a=%zz", "a")).isEqualTo("%zz");
        assertThat(QueryString.first("a=%E2%82", "a")).isEqualTo("\ufffd");
        assertThat(QueryString.first("a=%4", "a")).isEqualTo("%4");
        assertThat(QueryString.first("a=1+2", "a")).isEqualTo("1 2");
        assertThat(QueryString.first(null, "a")).isNull();
    }

    @Test
    void globalIsOneKeyForEveryone() {
        assertThat(resolve("global", FULL)).isEqualTo("*");
        assertThat(resolve("global", FakeRequest.from(null))).isEqualTo("*");
        assertThat(KeyResolver.GLOBAL).isEqualTo("*");
        assertThat(spec("global").global()).isTrue();
        assertThat(spec("global+ip").global()).isFalse();
    }

    // ---------------------------------------------------------------- combinations

    @Test
    void combinationsAreLengthPrefixed() {
        assertThat(resolve("user+ip", FULL)).isEqualTo("3:bob;11:203.0.113.7;");
        assertThat(resolve("ip+user", FULL)).isEqualTo("11:203.0.113.7;3:bob;");
        assertThat(resolve("header:X-User+cookie:sid+global", FULL)).isEqualTo("5:alice;6:c00kie;1:*;");
    }

    @Test
    void combinationIsMissingWhenAnyPartIs() {
        FakeRequest anonymous = FakeRequest.from("203.0.113.7");
        assertThat(resolve("user+ip", anonymous)).isNull();
        assertThat(resolve("ip+user", anonymous)).isNull();
        assertThat(resolve("ip+header:X-User", FakeRequest.from("evil.com").header("X-User", "a"))).isNull();
    }

    @Test
    void combinationsCannotCollide() {
        FakeRequest abc = FakeRequest.from("1.2.3.4").header("A", "a").header("B", "bc");
        FakeRequest abc2 = FakeRequest.from("1.2.3.4").header("A", "ab").header("B", "c");
        String one = resolve("header:A+header:B", abc);
        String two = resolve("header:A+header:B", abc2);
        assertThat(one).isEqualTo("1:a;2:bc;");
        assertThat(two).isEqualTo("2:ab;1:c;");
        assertThat(KeyResolver.hash(one)).isNotEqualTo(KeyResolver.hash(two));
        FakeRequest tricky = FakeRequest.from("1.2.3.4").header("A", "1:a;").header("B", "x");
        FakeRequest tricky2 = FakeRequest.from("1.2.3.4").header("A", "1").header("B", "a;1:x");
        assertThat(resolve("header:A+header:B", tricky)).isNotEqualTo(resolve("header:A+header:B", tricky2));
    }

    @Test
    void singlePartValueIsThePartItself() {
        // So that header:X-User "alice" in the filter and @LimitKey "alice" reach the same counter.
        assertThat(resolve("header:X-User", FULL)).isEqualTo("alice");
    }

    // ---------------------------------------------------------------- hostile values

    private static final List<String> HOSTILE = List.of(
            "{tag}", "a}b{c", "line\r\nSET x y", "\n", "\u0000nul", "x".repeat(10 * 1024), "J\u00fcrgen \u6f22\u5b57 \ud83d\ude00",
            "\ud800", "a\udc00b", "\udfff\ud800", " ", "sluice:rule:*", "*", "../../", "%00", "\"quoted\"");

    @Test
    void hashIs22UrlSafeCharactersAndDeterministic() {
        for (String v : HOSTILE) {
            String h = KeyResolver.hash(v);
            assertThat(h).as("hash of %s", v.length() > 20 ? v.substring(0, 20) : v)
                    .matches("[A-Za-z0-9_-]{22}")
                    .isEqualTo(KeyResolver.hash(v))
                    .isEqualTo(KeyResolver.hash(new String(v.toCharArray())));
            if (v.length() > 22 || !v.matches("[A-Za-z0-9_-]*")) assertThat(h).doesNotContain(v);
        }
        assertThat(HOSTILE.stream().map(KeyResolver::hash).distinct()).hasSize(HOSTILE.size());
    }

    @Test
    void hashIsTruncatedSha256InUrlSafeBase64() {
        // SHA-256("") = e3b0c442 98fc1c14 9afbf4c8 996fb924 ...; the first 16 bytes in URL-safe Base64.
        assertThat(KeyResolver.hash("")).isEqualTo("47DEQpj8HBSa-_TImW-5JA");
        // SHA-256("abc") = ba7816bf 8f01cfea 414140de 5dae2223 ...
        assertThat(KeyResolver.hash("abc")).isEqualTo("ungWv48Bz-pBQUDeXa4iIw");
        assertThat(KeyResolver.hash("alice")).isNotEqualTo(KeyResolver.hash("Alice"));
    }

    @Test
    void hostileValuesResolveWithoutException() {
        for (String v : HOSTILE) {
            FakeRequest r = FakeRequest.from("1.2.3.4").header("X-K", v).cookie("c", v).user(v).session(v);
            assertThatCode(() -> {
                String header = resolve("header:X-K", r);
                String combo = resolve("user+session+cookie:c+header:X-K+ip", r);
                assertThat(header).isEqualTo(v);
                assertThat(combo).isNotNull();
                assertThat(KeyResolver.hash(combo)).matches("[A-Za-z0-9_-]{22}");
            }).doesNotThrowAnyException();
        }
    }

    /** Issue 21: values were cut at 8 192 characters, so two API keys differing after that shared a counter. */
    @Test
    void longValuesAreKeptWholeSoValuesDifferingLateAreTwoCounters() {
        String common = "y".repeat(8_200);
        String a = common + "AAAAAAAA";
        String b = common + "BBBBBBBB";
        assertThat(a).hasSize(8_208);
        String resolvedA = resolve("header:X-Api-Key", FakeRequest.from("1.2.3.4").header("X-Api-Key", a));
        String resolvedB = resolve("header:X-Api-Key", FakeRequest.from("1.2.3.4").header("X-Api-Key", b));
        assertThat(resolvedA).isEqualTo(a);
        assertThat(KeyResolver.hash(resolvedA)).isNotEqualTo(KeyResolver.hash(resolvedB));
        assertThat(resolve("param:q", FakeRequest.from("1.2.3.4").query("q=" + a))).isEqualTo(a);
        // A combined key: its long part joins as a digest, still distinct.
        String comboA = resolve("header:X-Api-Key+ip", FakeRequest.from("1.2.3.4").header("X-Api-Key", a));
        String comboB = resolve("header:X-Api-Key+ip", FakeRequest.from("1.2.3.4").header("X-Api-Key", b));
        assertThat(comboA).hasSizeLessThan(100).isNotEqualTo(comboB).startsWith("#");
        assertThat(comboA).isEqualTo(resolve("header:X-Api-Key+ip", FakeRequest.from("1.2.3.4").header("X-Api-Key", a)));
    }

    /** A streamed hash is the hash of the whole value: the same digest as of its bytes at once, surrogates included. */
    @Test
    void aStreamedHashEqualsTheHashOfTheWholeValue() throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        String emoji = "\uD83D\uDE00";
        List<String> values = List.of("z".repeat(3_000), "é".repeat(5_000), emoji.repeat(4_097),
                "a" + emoji.repeat(4_096) + "b", "x".repeat(8_191) + emoji + "tail",
                // An unpaired surrogate (either half) becomes '?', as String.getBytes has it.
                "q".repeat(9_000) + "\uD83D" + "r".repeat(10), "s".repeat(9_000) + "\uDE00",
                "w".repeat(1_048_576));
        for (String v : values) {
            byte[] whole = sha.digest(v.getBytes(StandardCharsets.UTF_8));
            String expected = Base64.getUrlEncoder().withoutPadding()
                    .encodeToString(Arrays.copyOf(whole, 16));
            assertThat(KeyResolver.hash(v)).as("%d chars", v.length()).isEqualTo(expected);
        }
    }

    @Test
    void hostileQueryStringsNeverThrow() {
        String[] queries = {"%", "%%%", "=&=&", "a=%u1234", "&", "=", "a=%F0%9F", "q=" + "%41".repeat(5000),
                "a=\r\n", "a=%0D%0A"};
        for (String q : queries) {
            assertThatCode(() -> resolve("param:a", FakeRequest.from("1.2.3.4").query(q))).doesNotThrowAnyException();
        }
        assertThat(resolve("param:a", FakeRequest.from("1.2.3.4").query("a=%0D%0A"))).isEqualTo("\r\n");
        assertThat(resolve("param:q", FakeRequest.from("1.2.3.4").query("q=" + "%41".repeat(5000))))
                .isEqualTo("A".repeat(5000));
    }

    // ---------------------------------------------------------------- KeySpec

    @Test
    void keySpecParts() {
        assertThat(spec("ip")).isEqualTo(KeySpec.IP);
        assertThat(spec("header:X-User+param:p+cookie:c+session+user+global").alternatives().get(0).parts()).containsExactly(
                new KeySpec.Part(KeySpec.Kind.HEADER, "X-User"), new KeySpec.Part(KeySpec.Kind.PARAM, "p"),
                new KeySpec.Part(KeySpec.Kind.COOKIE, "c"), new KeySpec.Part(KeySpec.Kind.SESSION, null),
                new KeySpec.Part(KeySpec.Kind.USER, null), new KeySpec.Part(KeySpec.Kind.GLOBAL, null));
        assertThat(spec(" USER + Header:X-a ").toString()).isEqualTo("user+header:X-a");
        assertThat(spec("param:%C3%BC").alternatives().get(0).parts()).containsExactly(new KeySpec.Part(KeySpec.Kind.PARAM, "%C3%BC"));
    }

    @Test
    void keySpecRejects() {
        for (String bad : new String[] {"foo", "header:", "ip+ip", "header:bad name", "", "+", "user+", "ip:x",
                "session:x", "cookie:a;b", "param:a=b", "param:", "header:X\u00e9", "USER+user"}) {
            assertThat(KeySpec.parse(bad)).as(bad).isEmpty();
        }
    }
}
