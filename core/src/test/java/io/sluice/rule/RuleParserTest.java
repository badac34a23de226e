package io.sluice.rule;

import io.sluice.ConfigException;
import io.sluice.key.KeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

class RuleParserTest {
    private static final String RULE_PROPERTIES =
            "[algorithm, block, burst, capacity, concurrency, cost, costs, count, exempt, key, lease, methods, mode, on-backend-failure, "
            + "on-missing-key, overage, paths, plan, prefetch, prefetch-hold, problem-type, queue, rate, settle, status, throttling, wait, when] "
            + "or plans.<plan>.rate|burst|concurrency";
    private static final String GLOBALS = "[sluice.allow-no-rules, sluice.await-backend, sluice.backend-timeout, sluice.client-address-header, sluice.headers, sluice.key-prefix, sluice.local-share, "
            + "sluice.max-clock-skew, sluice.on-backend-failure, sluice.problem-type, sluice.redis.address, sluice.redis.config, "
            + "sluice.redis.transport, sluice.reload, sluice.trusted-proxies]";
    private static final String RATE = "expected <permits>/<period> such as 10/1h, 40/1m, 5/10s, 100/s or 2/500ms (permits from 1 to 1000000000, a period from 1ms to 366d)";
    private static final String PATHS = "expected servlet URL patterns such as /api/posts, /api/images/*, *.jpg or /*";
    private static final String KEY =
            "expected ip, user, session, global, header:<Name>, param:<name> or cookie:<name>, combined with + (user+ip), alternatives separated by | and tried in order (user|ip)";

    private static Map<String, String> props(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return m;
    }

    private static RuleSet parse(String... kv) {
        return RuleParser.parse(props(kv));
    }

    private static List<String> problems(String... kv) {
        ConfigException e = catchThrowableOfType(() -> parse(kv), ConfigException.class);
        assertThat(e).as("a ConfigException").isNotNull();
        return e.problems();
    }

    private static Rule rule(String... kv) {
        RuleSet set = parse(kv);
        assertThat(set.all()).hasSize(1);
        return set.all().get(0);
    }

    // ---------------------------------------------------------------- globals

    @Test
    void globalDefaults() {
        Settings s = parse("sluice.rules.a.rate", "1/s").settings();
        assertThat(s.redisAddress()).isEmpty();
        assertThat(s.redisConfig()).isEmpty();
        assertThat(s.keyPrefix()).isEqualTo("sluice");
        assertThat(s.onBackendFailure()).isEqualTo(FailurePolicy.ALLOW);
        assertThat(s.trustedProxies()).isSameAs(io.sluice.key.TrustedProxies.NONE);
        assertThat(s.trustedProxies().isEmpty()).isTrue();
        assertThat(s.trustedProxies().trusts("10.0.0.1")).isFalse();
        assertThat(s.clientAddressHeader()).isSameAs(io.sluice.key.ClientAddressHeader.X_FORWARDED_FOR);
        assertThat(s.headers()).isEqualTo(HeaderStyle.ALL);
        assertThat(s.backendTimeout()).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void emptyFileHasNoRulesAndDefaultSettings() {
        RuleSet set = RuleParser.parse(Map.of());
        assertThat(set.all()).isEmpty();
        assertThat(set.settings().keyPrefix()).isEqualTo("sluice");
        assertThat(set.matching("GET", "/")).isEmpty();
    }

    @Test
    void everyGlobalIsParsed() {
        Settings s = parse(
                "sluice.redis.address", "rediss://user:pw@redis.example:6380",
                "sluice.redis.config", "classpath:redisson.yaml",
                "sluice.key-prefix", "app:prod.v1_x-y",
                "sluice.on-backend-failure", "deny",
                "sluice.trusted-proxies", "10.0.0.0/8, ::1",
                "sluice.client-address-header", "X-Real-IP",
                "sluice.headers", "ietf",
                "sluice.backend-timeout", "150ms").settings();
        assertThat(s.redisAddress()).contains("rediss://user:pw@redis.example:6380");
        assertThat(s.redisConfig()).contains("classpath:redisson.yaml");
        assertThat(s.keyPrefix()).isEqualTo("app:prod.v1_x-y");
        assertThat(s.onBackendFailure()).isEqualTo(FailurePolicy.DENY);
        assertThat(s.trustedProxies().toString()).isEqualTo("10.0.0.0/8, ::1");
        assertThat(s.trustedProxies().trusts("10.255.0.1")).isTrue();
        assertThat(s.trustedProxies().trusts("::1")).isTrue();
        assertThat(s.trustedProxies().trusts("11.0.0.1")).isFalse();
        assertThat(s.clientAddressHeader().name()).isEqualTo("X-Real-IP");
        assertThat(s.headers()).isEqualTo(HeaderStyle.IETF);
        assertThat(s.backendTimeout()).isEqualTo(Duration.ofMillis(150));
    }

    @Test
    void everyHeaderStyle() {
        assertThat(parse("sluice.headers", "all").settings().headers()).isEqualTo(HeaderStyle.ALL);
        assertThat(parse("sluice.headers", "ietf").settings().headers()).isEqualTo(HeaderStyle.IETF);
        assertThat(parse("sluice.headers", "legacy").settings().headers()).isEqualTo(HeaderStyle.LEGACY);
        assertThat(parse("sluice.headers", "none").settings().headers()).isEqualTo(HeaderStyle.NONE);
        assertThat(parse("sluice.headers", " LEGACY ").settings().headers()).isEqualTo(HeaderStyle.LEGACY);
        assertThat(parse("sluice.on-backend-failure", "allow").settings().onBackendFailure())
                .isEqualTo(FailurePolicy.ALLOW);
    }

    @Test
    void badGlobalsAreReportedExactly() {
        assertThat(problems("sluice.key-prefix", "a{b}")).containsExactly(
                "sluice.key-prefix = \"a{b}\": expected 1 to 64 letters, digits, '_', '-', '.' or ':' (no braces)");
        assertThat(problems("sluice.key-prefix", "x".repeat(65))).containsExactly(
                "sluice.key-prefix = \"" + "x".repeat(65)
                        + "\": expected 1 to 64 letters, digits, '_', '-', '.' or ':' (no braces)");
        assertThat(problems("sluice.on-backend-failure", "open")).containsExactly(
                "sluice.on-backend-failure = \"open\": expected allow, deny or local");
        assertThat(problems("sluice.trusted-proxies", "10.0.0.0/33")).containsExactly(
                "sluice.trusted-proxies = \"10.0.0.0/33\": expected a comma-separated list of IP addresses or CIDR "
                        + "blocks such as 10.0.0.0/8, ::1");
        assertThat(problems("sluice.client-address-header", "X-Forwarded-For, Forwarded")).containsExactly(
                "sluice.client-address-header = \"X-Forwarded-For, Forwarded\": expected a header name such as "
                        + "X-Forwarded-For (the default), Forwarded or X-Real-IP");
        assertThat(problems("sluice.headers", "both")).containsExactly(
                "sluice.headers = \"both\": expected all, ietf, legacy or none");
        assertThat(problems("sluice.backend-timeout", "0ms")).containsExactly(
                "sluice.backend-timeout = \"0ms\": expected a positive duration such as 100ms");
        assertThat(problems("sluice.backend-timeout", "fast")).containsExactly(
                "sluice.backend-timeout = \"fast\": expected a positive duration such as 100ms");
        assertThat(problems("sluice.redis.address", "localhost:6379")).containsExactly(
                "sluice.redis.address = \"localhost:6379\": expected redis://host:port or rediss://host:port");
        assertThat(problems("sluice.redis.config", " ")).containsExactly(
                "sluice.redis.config = \"\": expected a location such as classpath:redisson.yaml or "
                        + "file:/etc/redisson.yaml");
    }

    @Test
    void redisPasswordNeverReachesTheMessage() {
        List<String> p = problems("sluice.redis.address", "redis://user:secret@host:6379 extra");
        assertThat(p).containsExactly(
                "sluice.redis.address = \"redis://***@host:6379 extra\": expected redis://host:port or rediss://host:port");
        ConfigException e = catchThrowableOfType(
                () -> parse("sluice.redis.address", "redis://user:sec ret@host:6379"), ConfigException.class);
        assertThat(e.problems()).containsExactly(
                "sluice.redis.address = \"redis://***@host:6379\": expected redis://host:port or rediss://host:port");
        assertThat(e.getMessage()).doesNotContain("sec ret").doesNotContain("user");
    }

    @Test
    void redisPasswordOfAnAddressWithoutSchemeNeverReachesTheMessage() {
        assertThat(problems("sluice.redis.address", "user:secret@host:6379")).containsExactly(
                "sluice.redis.address = \"***@host:6379\": expected redis://host:port or rediss://host:port");
    }

    @Test
    void passwordInAMisspelledPropertyNeverReachesTheMessage() {
        ConfigException e = catchThrowableOfType(
                () -> parse("sluice.redis.adress", "redis://user:secret@host:6379"), ConfigException.class);
        assertThat(e.problems()).containsExactly("sluice.redis.adress = \"redis://***@host:6379\": expected a known "
                + "property: one of " + GLOBALS + " or sluice.rules.<name>.<property>");
        assertThat(e.getMessage()).doesNotContain("secret");
    }

    @Test
    void redactUserInfo() {
        assertThat(RuleParser.redactUserInfo("redis://127.0.0.1:6379")).isEqualTo("redis://127.0.0.1:6379");
        assertThat(RuleParser.redactUserInfo("redis://:pw@h:1")).isEqualTo("redis://***@h:1");
        assertThat(RuleParser.redactUserInfo("rediss://u:p@ss@h:1")).isEqualTo("rediss://***@h:1");
        assertThat(RuleParser.redactUserInfo("u:p@h")).isEqualTo("***@h");
        assertThat(RuleParser.redactUserInfo("plain")).isEqualTo("plain");
    }

    @Test
    void unknownSluicePropertiesAreErrors() {
        assertThat(problems("sluice.rules.a.rate", "1/s", "sluice.redis.host", "x", "sluice.rules", "y",
                "sluice.", "z")).containsExactly(
                "sluice. = \"z\": expected a known property: one of " + GLOBALS + " or sluice.rules.<name>.<property>",
                "sluice.redis.host = \"x\": expected a known property: one of " + GLOBALS
                        + " or sluice.rules.<name>.<property>",
                "sluice.rules = \"y\": expected a known property: one of " + GLOBALS
                        + " or sluice.rules.<name>.<property>");
    }

    @Test
    void ruleWithoutPropertyIsAnUnknownProperty() {
        assertThat(problems("sluice.rules.posts", "1/s")).containsExactly(
                "sluice.rules.posts = \"1/s\": expected a known property: one of " + GLOBALS
                        + " or sluice.rules.<name>.<property>");
    }

    @Test
    void propertiesOutsideSluiceAreIgnored() {
        RuleSet set = parse("sluice.rules.a.rate", "1/s", "other.thing", "x", "sluicex.rules.b.rate", "oops",
                "Sluice.headers", "bad", "config", "classpath:x");
        assertThat(set.all()).extracting(Rule::name).containsExactly("a");
    }

    @Test
    void valuesAreTrimmedAndNullValuesAreEmpty() {
        assertThat(rule("sluice.rules.a.rate", "  10/1h  ").rate()).contains(new Rate(10, Duration.ofHours(1)));
        Map<String, String> m = new LinkedHashMap<>();
        m.put("sluice.rules.a.rate", null);
        ConfigException e = catchThrowableOfType(() -> RuleParser.parse(m), ConfigException.class);
        assertThat(e.problems()).containsExactly("sluice.rules.a.rate = \"\": " + RATE);
    }

    // ---------------------------------------------------------------- rules

    @Test
    void ruleDefaults() {
        Rule r = rule("sluice.rules.posts.rate", "10/1h");
        assertThat(r.name()).isEqualTo("posts");
        assertThat(r.rate()).contains(new Rate(10, Duration.ofHours(1)));
        assertThat(r.concurrency()).isZero();
        assertThat(r.limitsRate()).isTrue();
        assertThat(r.limitsConcurrency()).isFalse();
        assertThat(r.lease()).isEqualTo(Duration.ofSeconds(30));
        assertThat(r.waitTime()).isEqualTo(Duration.ZERO);
        assertThat(r.paths()).isEmpty();
        assertThat(r.methods()).isEmpty();
        assertThat(r.key()).isEqualTo(KeySpec.IP);
        assertThat(r.key().toString()).isEqualTo("ip");
        assertThat(r.onMissingKey()).isEqualTo(MissingKeyPolicy.SKIP);
        assertThat(r.status()).isEqualTo(429);
        assertThat(r.mode()).isEqualTo(Mode.ENFORCE);
        assertThat(r.dryRun()).isFalse();
        assertThat(r.onBackendFailure()).isEqualTo(FailurePolicy.ALLOW);
    }

    @Test
    void concurrencyRuleDefaults() {
        Rule r = rule("sluice.rules.images.concurrency", "4");
        assertThat(r.rate()).isEmpty();
        assertThat(r.concurrency()).isEqualTo(4);
        assertThat(r.limitsRate()).isFalse();
        assertThat(r.limitsConcurrency()).isTrue();
        assertThat(r.lease()).isEqualTo(Duration.ofSeconds(30));
        assertThat(r.waitTime()).isEqualTo(Duration.ZERO);
    }

    @Test
    void onBackendFailureInheritsTheGlobal() {
        RuleSet set = parse("sluice.on-backend-failure", "deny",
                "sluice.rules.a.rate", "1/s",
                "sluice.rules.b.rate", "1/s", "sluice.rules.b.on-backend-failure", "allow");
        assertThat(set.get("a").orElseThrow().onBackendFailure()).isEqualTo(FailurePolicy.DENY);
        assertThat(set.get("b").orElseThrow().onBackendFailure()).isEqualTo(FailurePolicy.ALLOW);
        assertThat(parse("sluice.rules.c.rate", "1/s", "sluice.rules.c.on-backend-failure", "deny")
                .get("c").orElseThrow().onBackendFailure()).isEqualTo(FailurePolicy.DENY);
    }

    @Test
    void everyRulePropertyIsParsed() {
        Rule r = rule(
                "sluice.rules.img_2-x.rate", "5/10s",
                "sluice.rules.img_2-x.concurrency", "4",
                "sluice.rules.img_2-x.lease", "1m",
                "sluice.rules.img_2-x.wait", "250ms",
                "sluice.rules.img_2-x.paths", "/api/images/*, *.png ,/exact",
                "sluice.rules.img_2-x.methods", "post, Get",
                "sluice.rules.img_2-x.key", "user+header:X-Tenant",
                "sluice.rules.img_2-x.on-missing-key", "deny",
                "sluice.rules.img_2-x.status", "503",
                "sluice.rules.img_2-x.mode", "dry-run",
                "sluice.rules.img_2-x.on-backend-failure", "deny");
        assertThat(r.name()).isEqualTo("img_2-x");
        assertThat(r.rate()).contains(new Rate(5, Duration.ofSeconds(10)));
        assertThat(r.concurrency()).isEqualTo(4);
        assertThat(r.lease()).isEqualTo(Duration.ofMinutes(1));
        assertThat(r.waitTime()).isEqualTo(Duration.ofMillis(250));
        assertThat(r.paths()).extracting(PathPattern::toString).containsExactly("/api/images/*", "*.png", "/exact");
        assertThat(r.methods()).isEqualTo(Set.of("POST", "GET"));
        assertThat(r.key().toString()).isEqualTo("user+header:X-Tenant");
        assertThat(r.key().alternatives().get(0).parts()).containsExactly(new KeySpec.Part(KeySpec.Kind.USER, null),
                new KeySpec.Part(KeySpec.Kind.HEADER, "X-Tenant"));
        assertThat(r.onMissingKey()).isEqualTo(MissingKeyPolicy.DENY);
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.mode()).isEqualTo(Mode.DRY_RUN);
        assertThat(r.dryRun()).isTrue();
        assertThat(r.onBackendFailure()).isEqualTo(FailurePolicy.DENY);
        assertThat(r.limitsRate()).isTrue();
        assertThat(r.limitsConcurrency()).isTrue();
    }

    @Test
    void theContractExampleParses() {
        RuleSet set = parse(
                "sluice.redis.address", "redis://127.0.0.1:6379",
                "sluice.key-prefix", "sluice",
                "sluice.on-backend-failure", "allow",
                "sluice.trusted-proxies", "10.0.0.0/8, ::1",
                "sluice.headers", "all",
                "sluice.rules.posts.paths", "/api/posts",
                "sluice.rules.posts.methods", "POST",
                "sluice.rules.posts.key", "user",
                "sluice.rules.posts.rate", "10/1h",
                "sluice.rules.images.paths", "/api/images/*",
                "sluice.rules.images.key", "global",
                "sluice.rules.images.concurrency", "4",
                "sluice.rules.images.lease", "30s");
        assertThat(set.all()).extracting(Rule::name).containsExactly("images", "posts");
        Rule images = set.get("images").orElseThrow();
        assertThat(images.key().global()).isTrue();
        assertThat(images.concurrency()).isEqualTo(4);
        Rule posts = set.get("posts").orElseThrow();
        assertThat(posts.methods()).containsExactly("POST");
        assertThat(posts.key().alternatives().get(0).parts()).containsExactly(new KeySpec.Part(KeySpec.Kind.USER, null));
        assertThat(set.matching("POST", "/api/posts")).containsExactly(posts);
        assertThat(set.matching("GET", "/api/posts")).isEmpty();
        assertThat(set.matching("GET", "/api/images/1")).containsExactly(images);
        assertThat(set.get("nope")).isEmpty();
    }

    @Test
    void methodsMatchCaseInsensitivelyAndAGetRuleAlsoCoversHead() {
        RuleSet set = RuleParser.parse(Map.of(
                "sluice.rules.reads.paths", "/m",
                "sluice.rules.reads.methods", "get",
                "sluice.rules.reads.rate", "10/1h",
                "sluice.rules.writes.paths", "/m",
                "sluice.rules.writes.methods", "POST, Put",
                "sluice.rules.writes.rate", "10/1h"));
        Rule reads = set.get("reads").orElseThrow();
        Rule writes = set.get("writes").orElseThrow();
        for (String m : List.of("GET", "get", "Get", "HEAD", "head")) {
            assertThat(set.matching(m, "/m")).as(m).containsExactly(reads);
        }
        for (String m : List.of("POST", "post", "PUT", "pUt")) {
            assertThat(set.matching(m, "/m")).as(m).containsExactly(writes);
        }
        // HEAD is covered by GET only, never by another method, and GET is not covered by HEAD.
        RuleSet headOnly = RuleParser.parse(Map.of("sluice.rules.h.paths", "/m", "sluice.rules.h.methods", "HEAD",
                "sluice.rules.h.rate", "1/1h"));
        assertThat(headOnly.matching("GET", "/m")).isEmpty();
        assertThat(headOnly.matching("head", "/m")).hasSize(1);
        assertThat(set.matching("DELETE", "/m")).isEmpty();
        assertThat(set.matching("OPTIONS", "/m")).isEmpty();
    }

    @Test
    void everyKeyKindParses() {
        assertThat(rule("sluice.rules.a.rate", "1/s", "sluice.rules.a.key", "session").key().toString())
                .isEqualTo("session");
        assertThat(rule("sluice.rules.a.rate", "1/s", "sluice.rules.a.key", "cookie:JSESSIONID").key().toString())
                .isEqualTo("cookie:JSESSIONID");
        assertThat(rule("sluice.rules.a.rate", "1/s", "sluice.rules.a.key", "param:api_key").key().toString())
                .isEqualTo("param:api_key");
        assertThat(rule("sluice.rules.a.rate", "1/s", "sluice.rules.a.key", "user + ip").key().toString())
                .isEqualTo("user+ip");
        assertThat(rule("sluice.rules.a.rate", "1/s", "sluice.rules.a.key", "IP").key()).isEqualTo(KeySpec.IP);
    }

    @Test
    void ruleNameMustBeLettersDigitsUnderscoreDash() {
        assertThat(problems("sluice.rules.bad!name.rate", "1/s")).containsExactly(
                "sluice.rules.bad!name.rate = \"1/s\": expected a rule name of letters, digits, '_' and '-' such as "
                        + "sluice.rules.posts.rate");
        assertThat(problems("sluice.rules..rate", "1/s")).containsExactly(
                "sluice.rules..rate = \"1/s\": expected a rule name of letters, digits, '_' and '-' such as "
                        + "sluice.rules.posts.rate");
        assertThat(problems("sluice.rules.caf\u00e9.rate", "1/s")).containsExactly(
                "sluice.rules.caf\u00e9.rate = \"1/s\": expected a rule name of letters, digits, '_' and '-' such as "
                        + "sluice.rules.posts.rate");
    }

    @Test
    void unknownRulePropertyIsAnError() {
        assertThat(problems("sluice.rules.posts.rate", "1/s", "sluice.rules.posts.limit", "5")).containsExactly(
                "sluice.rules.posts.limit = \"5\": expected one of the rule properties " + RULE_PROPERTIES);
        assertThat(problems("sluice.rules.posts.rate", "1/s", "sluice.rules.posts.rate.x", "5")).containsExactly(
                "sluice.rules.posts.rate.x = \"5\": expected one of the rule properties " + RULE_PROPERTIES);
    }

    @Test
    void ruleNeedsRateOrConcurrency() {
        assertThat(problems("sluice.rules.x.paths", "/a")).containsExactly(
                "sluice.rules.x.rate = (missing): expected a rate such as sluice.rules.x.rate=10/1h, or a concurrency "
                        + "such as sluice.rules.x.concurrency=4, or both");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ten/h", "0/1s", "10/0s", "10", "10/1x"})
    void badRate(String value) {
        assertThat(problems("sluice.rules.posts.rate", value))
                .containsExactly("sluice.rules.posts.rate = \"" + value + "\": " + RATE);
    }

    @Test
    void theContractsRateExample() {
        assertThat(problems("sluice.rules.posts.rate", "ten/h")).containsExactly(
                "sluice.rules.posts.rate = \"ten/h\": expected <permits>/<period> such as 10/1h, 40/1m, 5/10s, "
                        + "100/s or 2/500ms (permits from 1 to 1000000000, a period from 1ms to 366d)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-1", "four", "1.5", "", "1234567890"})
    void badConcurrency(String value) {
        assertThat(problems("sluice.rules.c.concurrency", value)).containsExactly("sluice.rules.c.concurrency = \""
                + value + "\": expected a whole number of requests in flight, at least 1, such as 4");
    }

    @Test
    void leaseAndWaitOnlyWithConcurrency() {
        assertThat(problems("sluice.rules.r.rate", "1/s", "sluice.rules.r.lease", "30s", "sluice.rules.r.wait", "1s"))
                .containsExactly(
                        "sluice.rules.r.lease = \"30s\": expected lease only on a rule with concurrency",
                        "sluice.rules.r.wait = \"1s\": expected wait only on a rule with concurrency");
    }

    @Test
    void leaseOfAtLeastOneSecond() {
        assertThat(problems("sluice.rules.c.concurrency", "1", "sluice.rules.c.lease", "999ms")).containsExactly(
                "sluice.rules.c.lease = \"999ms\": expected a duration of at least 1s such as 30s");
        assertThat(problems("sluice.rules.c.concurrency", "1", "sluice.rules.c.lease", "0s")).containsExactly(
                "sluice.rules.c.lease = \"0s\": expected a duration of at least 1s such as 30s");
        assertThat(rule("sluice.rules.c.concurrency", "1", "sluice.rules.c.lease", "1000ms").lease())
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(rule("sluice.rules.c.concurrency", "1", "sluice.rules.c.lease", "PT2H").lease())
                .isEqualTo(Duration.ofHours(2));
    }

    @Test
    void badWait() {
        assertThat(problems("sluice.rules.c.concurrency", "1", "sluice.rules.c.wait", "soon")).containsExactly(
                "sluice.rules.c.wait = \"soon\": expected a duration such as 500ms, 30s, 1m, 1h, 1d or PT1H");
        assertThat(problems("sluice.rules.c.concurrency", "1", "sluice.rules.c.wait", "-1s")).containsExactly(
                "sluice.rules.c.wait = \"-1s\": expected a duration such as 500ms, 30s, 1m, 1h, 1d or PT1H");
    }

    @ParameterizedTest
    @ValueSource(strings = {"399", "600", "200", "4299", "42", "abc"})
    void statusFrom400To599(String value) {
        assertThat(problems("sluice.rules.a.rate", "1/s", "sluice.rules.a.status", value)).containsExactly(
                "sluice.rules.a.status = \"" + value + "\": expected an HTTP status code from 400 to 599 such as 429");
    }

    @Test
    void statusBounds() {
        assertThat(rule("sluice.rules.a.rate", "1/s", "sluice.rules.a.status", "400").status()).isEqualTo(400);
        assertThat(rule("sluice.rules.a.rate", "1/s", "sluice.rules.a.status", "599").status()).isEqualTo(599);
    }

    @ParameterizedTest
    @ValueSource(strings = {"GET;POST", "GET POST", "G3T", ",GET", "GET,,POST", "*"})
    void badMethods(String value) {
        assertThat(problems("sluice.rules.a.rate", "1/s", "sluice.rules.a.methods", value)).containsExactly(
                "sluice.rules.a.methods = \"" + value + "\": expected comma-separated HTTP methods such as GET, POST");
    }

    @ParameterizedTest
    @ValueSource(strings = {"foo", "header:", "ip+ip", "header:bad name", "user:x", "ip+", "+ip", "cookie:",
            "param:a=b", "param:a&b", "header:X-Y+header:X-Y", "global:x"})
    void badKeys(String value) {
        assertThat(problems("sluice.rules.a.rate", "1/s", "sluice.rules.a.key", value))
                .containsExactly("sluice.rules.a.key = \"" + value + "\": " + KEY);
    }

    @Test
    void emptyKeyIsAnError() {
        assertThat(problems("sluice.rules.a.rate", "1/s", "sluice.rules.a.key", ""))
                .containsExactly("sluice.rules.a.key = \"\": " + KEY);
    }

    @ParameterizedTest
    @ValueSource(strings = {"api/x", "/a/*/b", "*.", "/ok, api/x", "/a/b*"})
    void badPaths(String value) {
        assertThat(problems("sluice.rules.a.rate", "1/s", "sluice.rules.a.paths", value))
                .containsExactly("sluice.rules.a.paths = \"" + value + "\": " + PATHS);
    }

    @Test
    void badEnums() {
        assertThat(problems("sluice.rules.a.rate", "1/s", "sluice.rules.a.mode", "report")).containsExactly(
                "sluice.rules.a.mode = \"report\": expected enforce or dry-run");
        assertThat(problems("sluice.rules.a.rate", "1/s", "sluice.rules.a.on-missing-key", "allow")).containsExactly(
                "sluice.rules.a.on-missing-key = \"allow\": expected skip or deny");
        assertThat(problems("sluice.rules.a.rate", "1/s", "sluice.rules.a.on-backend-failure", "skip"))
                .containsExactly("sluice.rules.a.on-backend-failure = \"skip\": expected allow, deny or local");
    }

    @Test
    void controlCharactersInValuesArePrintedAsQuestionMarksAndLongValuesAreCut() {
        assertThat(problems("sluice.rules.a.rate", "1/s\u0001x")).containsExactly(
                "sluice.rules.a.rate = \"1/s?x\": " + RATE);
        String longValue = "y".repeat(250);
        assertThat(problems("sluice.rules.a.rate", longValue)).containsExactly(
                "sluice.rules.a.rate = \"" + "y".repeat(200) + "...\": " + RATE);
    }

    @Test
    void everyProblemIsReportedTogether() {
        ConfigException e = catchThrowableOfType(() -> parse(
                "sluice.headers", "loud",
                "sluice.bogus", "1",
                "sluice.rules.a.rate", "ten/h",
                "sluice.rules.a.status", "200",
                "sluice.rules.b.concurrency", "0",
                "sluice.rules.b.lease", "10ms",
                "sluice.rules.c.paths", "api",
                "sluice.rules.ok.rate", "1/s",
                "sluice.rules.b!.rate", "1/s"), ConfigException.class);
        List<String> expected = List.of(
                "sluice.bogus = \"1\": expected a known property: one of " + GLOBALS
                        + " or sluice.rules.<name>.<property>",
                "sluice.rules.b!.rate = \"1/s\": expected a rule name of letters, digits, '_' and '-' such as "
                        + "sluice.rules.posts.rate",
                "sluice.headers = \"loud\": expected all, ietf, legacy or none",
                "sluice.rules.a.rate = \"ten/h\": " + RATE,
                "sluice.rules.a.status = \"200\": expected an HTTP status code from 400 to 599 such as 429",
                "sluice.rules.b.concurrency = \"0\": expected a whole number of requests in flight, at least 1, such as 4",
                "sluice.rules.b.lease = \"10ms\": expected a duration of at least 1s such as 30s",
                "sluice.rules.c.rate = (missing): expected a rate such as sluice.rules.c.rate=10/1h, or a concurrency "
                        + "such as sluice.rules.c.concurrency=4, or both",
                "sluice.rules.c.paths = \"api\": " + PATHS);
        assertThat(e.problems()).containsExactlyElementsOf(expected);
        StringBuilder message = new StringBuilder("Invalid Sluice configuration (9 problems):");
        for (String p : expected) message.append("\n  - ").append(p);
        assertThat(e.getMessage()).isEqualTo(message.toString());
    }

    @Test
    void singleProblemMessage() {
        ConfigException e = catchThrowableOfType(() -> parse("sluice.headers", "loud"), ConfigException.class);
        assertThat(e.getMessage()).isEqualTo("Invalid Sluice configuration: sluice.headers = \"loud\": expected all, "
                + "ietf, legacy or none");
    }

    // ---------------------------------------------------------------- rule set

    @Test
    void rulesAreSortedByName() {
        RuleSet set = parse("sluice.rules.zeta.rate", "1/s", "sluice.rules.Alpha.rate", "1/s",
                "sluice.rules.beta.rate", "1/s", "sluice.rules.alpha.rate", "1/s", "sluice.rules._10.rate", "1/s",
                "sluice.rules.2.rate", "1/s");
        assertThat(set.all()).extracting(Rule::name).containsExactly("2", "Alpha", "_10", "alpha", "beta", "zeta");
    }

    @Test
    void ruleSetConstructorSortsToo() {
        RuleSet parsed = parse("sluice.rules.b.rate", "1/s", "sluice.rules.a.rate", "1/s");
        Rule a = parsed.get("a").orElseThrow();
        Rule b = parsed.get("b").orElseThrow();
        RuleSet set = new RuleSet(parsed.settings(), List.of(b, a));
        assertThat(set.all()).containsExactly(a, b);
        assertThat(set.get("b")).isEqualTo(Optional.of(b));
    }

    @Test
    void matchingReturnsNameOrderAndRespectsMethods() {
        RuleSet set = parse(
                "sluice.rules.z-all.rate", "1/s", "sluice.rules.z-all.paths", "/*",
                "sluice.rules.m-posts.rate", "1/s", "sluice.rules.m-posts.paths", "/api/posts/*",
                "sluice.rules.m-posts.methods", "POST,PUT",
                "sluice.rules.a-jpg.concurrency", "2", "sluice.rules.a-jpg.paths", "*.jpg",
                "sluice.rules.code-only.rate", "1/s");
        List<String> post = set.matching("POST", "/api/posts/1.jpg").stream().map(Rule::name).toList();
        assertThat(post).containsExactly("a-jpg", "m-posts", "z-all");
        assertThat(set.matching("PUT", "/api/posts")).extracting(Rule::name).containsExactly("m-posts", "z-all");
        assertThat(set.matching("GET", "/api/posts/1")).extracting(Rule::name).containsExactly("z-all");
        // Methods match case-insensitively (the contract's Evaluation).
        assertThat(set.matching("post", "/api/posts/1")).extracting(Rule::name).containsExactly("m-posts", "z-all");
        assertThat(set.matching("GET", "/img/x.jpg")).extracting(Rule::name).containsExactly("a-jpg", "z-all");
    }

    @Test
    void ruleWithoutPathsNeverMatches() {
        RuleSet set = parse("sluice.rules.code-only.rate", "1/s", "sluice.rules.code-only.methods", "GET");
        Rule r = set.get("code-only").orElseThrow();
        assertThat(r.matches("GET", "/")).isFalse();
        assertThat(r.matches("GET", "/anything")).isFalse();
        assertThat(set.matching("GET", "/")).isEmpty();
        assertThat(set.all()).containsExactly(r);
    }

    @Test
    void pathsMatchAnyOfSeveralPatterns() {
        Rule r = rule("sluice.rules.a.rate", "1/s", "sluice.rules.a.paths", "/login,/api/*");
        assertThat(r.matches("POST", "/login")).isTrue();
        assertThat(r.matches("GET", "/api/x")).isTrue();
        assertThat(r.matches("GET", "/login/x")).isFalse();
        assertThat(r.matches("GET", "/other")).isFalse();
    }

    @Test
    void aLeaseMustOutlastTwiceTheToleratedClockSkew() {
        assertThat(problems("sluice.max-clock-skew", "10s", "sluice.rules.c.concurrency", "2", "sluice.rules.c.lease", "15s"))
                .containsExactly("sluice.rules.c.lease = \"15s\": expected a lease of at least twice sluice.max-clock-skew (20s), "
                        + "since servers with skewed clocks disagree on when a lease ends");
        assertThat(problems("sluice.max-clock-skew", "20s", "sluice.rules.c.concurrency", "2"))
                .containsExactly("sluice.rules.c.lease = \"30s\": expected a lease of at least twice sluice.max-clock-skew (40s), "
                        + "since servers with skewed clocks disagree on when a lease ends");
        assertThat(RuleParser.parse(java.util.Map.of("sluice.max-clock-skew", "10s", "sluice.rules.c.concurrency", "2",
                "sluice.rules.c.lease", "20s")).get("c").orElseThrow().lease()).isEqualTo(java.time.Duration.ofSeconds(20));
        assertThat(problems("sluice.max-clock-skew", "soon")).containsExactly(
                "sluice.max-clock-skew = \"soon\": expected a duration such as 500ms");
    }

    // ---------------------------------------------------------------- block

    @Test
    void blockIsADurationFromOneSecondToAWeek() {
        assertThat(rule("sluice.rules.a.rate", "5/15m", "sluice.rules.a.block", "15m").block()).isEqualTo(Duration.ofMinutes(15));
        assertThat(rule("sluice.rules.a.rate", "5/15m", "sluice.rules.a.block", "1s").block()).isEqualTo(Duration.ofSeconds(1));
        assertThat(rule("sluice.rules.a.rate", "5/15m", "sluice.rules.a.block", "7d").block()).isEqualTo(Duration.ofDays(7));
        Rule none = rule("sluice.rules.a.rate", "5/15m");
        assertThat(none.block()).isZero();
        assertThat(none.blocks()).isFalse();
    }

    @ParameterizedTest
    @ValueSource(strings = {"0s", "999ms", "8d", "15", "-1m", "forever", "PT0S"})
    void aBadBlockNamesPropertyValueAndRange(String value) {
        assertThat(problems("sluice.rules.a.rate", "5/15m", "sluice.rules.a.block", value)).containsExactly(
                "sluice.rules.a.block = \"" + value + "\": expected a duration from 1s to 7d such as 15m");
    }

    @Test
    void blockNeedsARateWithoutPrefetchOrElasticThrottling() {
        assertThat(problems("sluice.rules.a.concurrency", "2", "sluice.rules.a.block", "1m")).containsExactly(
                "sluice.rules.a.block = \"1m\": expected block only on a rule with rate (a block starts when the rate rejects a key)");
        assertThat(problems("sluice.rules.a.rate", "100/1m", "sluice.rules.a.prefetch", "10", "sluice.rules.a.block", "1m"))
                .containsExactly("sluice.rules.a.block = \"1m\": expected block without prefetch (a server's prefetched "
                        + "permits would admit a blocked key)");
        assertThat(problems("sluice.rules.g.rate", "100/1m", "sluice.rules.g.key", "global",
                "sluice.rules.a.rate", "10/1m", "sluice.rules.a.throttling", "elastic", "sluice.rules.a.capacity", "g",
                "sluice.rules.a.block", "1m"))
                .containsExactly("sluice.rules.a.block = \"1m\": expected block with throttling=hard or soft");
    }
}
