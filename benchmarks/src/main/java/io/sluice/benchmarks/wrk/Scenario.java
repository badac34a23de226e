package io.sluice.benchmarks.wrk;

import io.sluice.benchmarks.Hello;
import io.sluice.benchmarks.NaiveRateLimitFilter;
import io.sluice.filter.SluiceFilter;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What guards {@code /hello} in one web application of the wrk benchmark: nothing, the hand-written
 * {@link NaiveRateLimitFilter} (two round trips for its headers, or {@code one-round-trip}: {@code tryAcquire} alone,
 * no headers), or {@link SluiceFilter} with one rate rule of each algorithm measured, as configured by default
 * ({@code prefetch=auto}), with {@code prefetch=off} (the default before issue 26) and with a fixed {@code prefetch}
 * ({@link #PREFETCH} permits a server takes ahead, for the default hold of 1 s).
 * Every rule is per client ({@code X-Client}), on {@code /*}, never reached, every header on.
 */
enum Scenario {
    NONE("none", null, null),
    HAND_WRITTEN("hand-written", null, null),
    ONE_ROUND_TRIP("one-round-trip", null, null),
    SLIDING_LOG("sluice-sliding-log", "sliding-log", null),
    TOKEN_BUCKET("sluice-token-bucket", "token-bucket", null),
    SLIDING_LOG_OFF("sluice-sliding-log-off", "sliding-log", "off"),
    TOKEN_BUCKET_OFF("sluice-token-bucket-off", "token-bucket", "off"),
    SLIDING_LOG_PREFETCH("sluice-sliding-log-prefetch", "sliding-log", Scenario.PREFETCH),
    TOKEN_BUCKET_PREFETCH("sluice-token-bucket-prefetch", "token-bucket", Scenario.PREFETCH);

    static final String HEADER = "X-Client";
    /** A limit nobody reaches in a run: every request is allowed and consumes a permit. */
    static final long PERMITS = 1_000_000;
    static final long PERIOD_SECONDS = 10;
    /** Permits a server prefetches in the prefetch scenarios: a ten-thousandth of the limit. */
    static final String PREFETCH = "100";
    static final String ALL = "none,hand-written,one-round-trip,sluice-sliding-log,sluice-token-bucket,sluice-sliding-log-off,"
            + "sluice-token-bucket-off,sluice-sliding-log-prefetch,sluice-token-bucket-prefetch";

    private final String id;
    private final String algorithm;
    /** The rule's {@code prefetch}; null for none written (the default, {@code auto}). */
    private final String prefetch;

    Scenario(String id, String algorithm, String prefetch) {
        this.id = id;
        this.algorithm = algorithm;
        this.prefetch = prefetch;
    }

    String id() {
        return id;
    }

    /** The web application's context path. */
    String contextPath() {
        return "/" + id;
    }

    boolean sluice() {
        return algorithm != null;
    }

    /** One of the two hand-written baselines, configured by init-params. */
    boolean handWritten() {
        return this == HAND_WRITTEN || this == ONE_ROUND_TRIP;
    }

    /** The filter class, or null for no filter. */
    String filterClass() {
        return switch (this) {
            case NONE -> null;
            case HAND_WRITTEN, ONE_ROUND_TRIP -> NaiveRateLimitFilter.class.getName();
            default -> SluiceFilter.class.getName();
        };
    }

    /**
     * The hand-written filter's init-params; Sluice's rules file (as {@code sluice.*} properties), with
     * {@code sluice.backend-timeout} only when {@code backendTimeout} is not null (else Sluice's default).
     */
    Map<String, String> filterParameters(String redisAddress, String backendTimeout) {
        Map<String, String> p = new LinkedHashMap<>();
        if (handWritten()) {
            p.put(NaiveRateLimitFilter.REDIS_ADDRESS, redisAddress);
            p.put(NaiveRateLimitFilter.HEADER, HEADER);
            p.put(NaiveRateLimitFilter.PERMITS, Long.toString(PERMITS));
            p.put(NaiveRateLimitFilter.PERIOD_SECONDS, Long.toString(PERIOD_SECONDS));
            p.put(NaiveRateLimitFilter.HEADERS, Boolean.toString(this == HAND_WRITTEN));
        } else if (sluice()) {
            p.put("sluice.redis.address", redisAddress);
            // NIO, as the hand-written filter's client and the earlier tables: Jetty runs from the benchmarks jar, which
            // carries the epoll library (QuietRoundTrip measures the transports; issue 26's note).
            p.put("sluice.redis.transport", "nio");
            p.put("sluice.key-prefix", "wrk-" + id);
            p.put("sluice.headers", "all");
            if (backendTimeout != null) p.put("sluice.backend-timeout", backendTimeout);
            p.put("sluice.rules.clients.paths", "/*");
            p.put("sluice.rules.clients.key", "header:" + HEADER);
            p.put("sluice.rules.clients.rate", PERMITS + "/" + PERIOD_SECONDS + "s");
            p.put("sluice.rules.clients.algorithm", algorithm);
            if (prefetch != null) p.put("sluice.rules.clients.prefetch", prefetch);
        }
        return p;
    }

    /** The WAR's {@code web.xml}: the filter (if any) on {@code /*}, {@link Hello} at {@code /hello}. */
    String webXml(String redisAddress, String backendTimeout) {
        StringBuilder x = new StringBuilder("""
                <?xml version="1.0" encoding="UTF-8"?>
                <web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="5.0" metadata-complete="true">
                """);
        if (filterClass() != null) {
            x.append("  <filter>\n    <filter-name>limit</filter-name>\n    <filter-class>").append(filterClass())
                    .append("</filter-class>\n    <async-supported>true</async-supported>\n");
            // Sluice reads WEB-INF/classes/sluice.properties, as an application's would; the hand-written one its init-params.
            if (handWritten()) {
                filterParameters(redisAddress, backendTimeout).forEach((k, v) -> x.append("    <init-param><param-name>").append(k)
                        .append("</param-name><param-value>").append(v).append("</param-value></init-param>\n"));
            }
            x.append("  </filter>\n  <filter-mapping>\n    <filter-name>limit</filter-name>\n    <url-pattern>/*</url-pattern>\n  </filter-mapping>\n");
        }
        x.append("  <servlet>\n    <servlet-name>hello</servlet-name>\n    <servlet-class>").append(Hello.class.getName())
                .append("</servlet-class>\n  </servlet>\n  <servlet-mapping>\n    <servlet-name>hello</servlet-name>\n")
                .append("    <url-pattern>/hello</url-pattern>\n  </servlet-mapping>\n</web-app>\n");
        return x.toString();
    }

    /** {@code WEB-INF/classes/sluice.properties} of a Sluice scenario. */
    String sluiceProperties(String redisAddress, String backendTimeout) {
        StringBuilder p = new StringBuilder("# The wrk benchmark's rule: per client, never reached, every header.\n");
        filterParameters(redisAddress, backendTimeout).forEach((k, v) -> p.append(k).append('=').append(v).append('\n'));
        return p.toString();
    }

    static Scenario parse(String id) {
        for (Scenario s : values()) if (s.id.equals(id.trim())) return s;
        throw new IllegalArgumentException("scenario = " + id + ": expected some of " + ALL);
    }
}
