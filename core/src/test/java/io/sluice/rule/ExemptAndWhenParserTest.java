package io.sluice.rule;

import io.sluice.ConfigException;
import io.sluice.key.Exemptions;
import io.sluice.key.KeySpec;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** {@code exempt}, {@code when} and key alternatives: defaults, values and every bad form with its message. */
class ExemptAndWhenParserTest {
    private static final String EXEMPT = "expected " + Exemptions.EXPECTED + "; ";

    private static Map<String, String> props(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("sluice.rules.a.rate", "5/1m");
        for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return m;
    }

    private static Rule rule(String... kv) {
        return RuleParser.parse(props(kv)).get("a").orElseThrow();
    }

    private static List<String> problems(String... kv) {
        ConfigException e = catchThrowableOfType(() -> RuleParser.parse(props(kv)), ConfigException.class);
        assertThat(e).as("a ConfigException").isNotNull();
        return e.problems();
    }

    @Test
    void defaults() {
        Rule r = rule();
        assertThat(r.when()).isEqualTo(When.ALWAYS);
        assertThat(r.exempt()).isSameAs(Exemptions.NONE);
        assertThat(r.key()).isEqualTo(KeySpec.IP);
    }

    @Test
    void values() {
        Rule r = rule("sluice.rules.a.when", "Authenticated", "sluice.rules.a.key", "user|ip",
                "sluice.rules.a.exempt", "ip:10.0.0.0/8, ip:::1, ip:2001:db8::/32, user:monitor, role:admin, attribute:io.example.trusted");
        assertThat(r.when()).isEqualTo(When.AUTHENTICATED);
        assertThat(r.key().toString()).isEqualTo("user|ip");
        assertThat(r.exempt().toString()).isEqualTo("ip:10.0.0.0/8, ip:::1, ip:2001:db8::/32, user:monitor, role:admin, attribute:io.example.trusted");
        assertThat(rule("sluice.rules.a.when", "anonymous").when()).isEqualTo(When.ANONYMOUS);
        assertThat(rule("sluice.rules.a.when", "always").when()).isEqualTo(When.ALWAYS);
        assertThat(rule("sluice.rules.a.when", "anonymous", "sluice.rules.a.key", "user|ip").when()).isEqualTo(When.ANONYMOUS);
        assertThat(rule("sluice.rules.a.key", "user+ip|ip").key().alternatives()).hasSize(2);
    }

    @Test
    void whenAndExemptKeepTheirValuesUnderAPlan() {
        Rule r = rule("sluice.rules.a.when", "authenticated", "sluice.rules.a.exempt", "user:ops", "sluice.rules.a.key", "user",
                "sluice.rules.a.plan", "header:X-Plan", "sluice.rules.a.plans.pro.rate", "50/1m");
        Rule underPro = r.plans().lookup("pro").applyTo(r);
        assertThat(underPro.when()).isEqualTo(When.AUTHENTICATED);
        assertThat(underPro.exempt()).isSameAs(r.exempt());
    }

    @Test
    void aHeaderNeverExemptsAndTheMessageSaysWhy() {
        assertThat(problems("sluice.rules.a.exempt", "ip:10.0.0.0/8, header:X-Internal")).containsExactly(
                "sluice.rules.a.exempt = \"ip:10.0.0.0/8, header:X-Internal\": " + EXEMPT + "'header:X-Internal' is a request "
                        + "header, which never exempts: a client can send any header; exempt by ip: (through "
                        + "sluice.trusted-proxies), user:, role: or an attribute: your own filter sets");
    }

    @Test
    void everyBadExemption() {
        Map<String, String> bad = new LinkedHashMap<>();
        bad.put("ip:10.0.0.0/33", "'ip:10.0.0.0/33' is not an IP address or CIDR block such as 10.0.0.0/8, 192.168.1.7, ::1 or "
                + "2001:db8::/32 (prefix 0 to 32 for IPv4, 0 to 128 for IPv6)");
        bad.put("ip:2001:db8::/129", "'ip:2001:db8::/129' is not");
        bad.put("ip:10.0.0.0/x", "'ip:10.0.0.0/x' is not");
        bad.put("ip:intranet.example.com", "'ip:intranet.example.com' is not");
        bad.put("ip:", "'ip:' is not");
        bad.put("user:", "'user:' needs a user name");
        bad.put("role:", "'role:' needs a role name");
        bad.put("attribute:", "'attribute:' needs an attribute name of printable ASCII without spaces");
        bad.put("attribute:a b", "'attribute:a b' needs an attribute name");
        bad.put("cookie:trusted", "'cookie:trusted' is of no known kind");
        bad.put("param:trusted", "'param:trusted' is of no known kind");
        bad.put("admin", "'admin' is of no known kind");
        bad.put("user:a,,user:b", "an empty entry");
        bad.put(",", "an empty entry");
        bad.put("", "expected " + Exemptions.EXPECTED);
        bad.forEach((value, message) -> assertThat(problems("sluice.rules.a.exempt", value)).as(value)
                .singleElement().satisfies(p -> assertThat(p).startsWith("sluice.rules.a.exempt = \"" + value + "\": expected")
                        .contains(message)));
    }

    @Test
    void badWhen() {
        assertThat(problems("sluice.rules.a.when", "logged-in")).containsExactly(
                "sluice.rules.a.when = \"logged-in\": expected always, anonymous or authenticated");
        assertThat(problems("sluice.rules.a.when", "")).containsExactly(
                "sluice.rules.a.when = \"\": expected always, anonymous or authenticated");
    }

    @Test
    void anonymousWithAKeyThatNeedsAUserWouldNeverCount() {
        for (String key : new String[] {"user", "user+ip", "user+ip|user+header:X-A"}) {
            assertThat(problems("sluice.rules.a.when", "anonymous", "sluice.rules.a.key", key)).as(key).containsExactly(
                    "sluice.rules.a.when = \"anonymous\": expected always or authenticated with key " + KeySpec.parse(key).orElseThrow()
                            + " (an anonymous request has no user, so the rule would never count one), or a key such as user|ip");
        }
    }

    @Test
    void badAlternatives() {
        String expected = "expected " + KeySpec.EXPECTED;
        for (String key : new String[] {"user|", "|ip", "user||ip", "user|user", "global|ip", "ip|user+ip", "user|foo"}) {
            assertThat(problems("sluice.rules.a.key", key)).as(key).containsExactly("sluice.rules.a.key = \"" + key + "\": " + expected);
        }
    }

    @Test
    void everyProblemOfARuleIsReportedTogether() {
        assertThat(problems("sluice.rules.a.when", "sometimes", "sluice.rules.a.exempt", "header:X-A",
                "sluice.rules.a.key", "user|")).hasSize(3);
    }
}
